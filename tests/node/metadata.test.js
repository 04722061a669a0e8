// Metadata and contract checks: a wrong file must fail early with a message naming the field.
import test from 'node:test';
import assert from 'node:assert/strict';
import { validateMetadata, checkSessionContract, tokenLayout, POOL_IDS, graphMethodIds, checkBlocksFor } from '../../runtime/metadata.js';
import { loadCore } from '../../runtime/core.js';
import { tinyMetadata } from './explainer-fixture.js';

test('valid metadata passes unchanged', () => {
  const m = tinyMetadata();
  assert.equal(validateMetadata(m), m);
});

test('wrong format and unsupported format_version are named', () => {
  const m = { ...tinyMetadata(), format: 'something-else', format_version: 7 };
  assert.throws(() => validateMetadata(m, 'x.json'), (e) => /x\.json/.test(e.message)
    && /"format" is "something-else"/.test(e.message) && /"format_version" 7 is not supported/.test(e.message));
});

test('missing architecture fields, labels length and outputs are all listed', () => {
  const m = tinyMetadata();
  delete m.architecture.heads;
  m.labels = m.labels.slice(0, 2);
  delete m.outputs.attn_rel;
  assert.throws(() => validateMetadata(m), (e) => /architecture\.heads" is missing/.test(e.message)
    && /"labels" has 2 entries/.test(e.message) && /"outputs" lacks attn_rel/.test(e.message));
});

test('token count must match the grid', () => {
  const m = tinyMetadata();
  m.architecture.tokens = 6;
  assert.throws(() => validateMetadata(m), /tokens" 6 != grid 2×2 \+ 1/);
});

test('non-object metadata is rejected', () => {
  assert.throws(() => validateMetadata(null, 'm.json'), /m\.json is not an explainer metadata object/);
  assert.throws(() => validateMetadata([1]), /not an explainer metadata object/);
});

test('session contract check names the missing outputs', () => {
  const session = { inputNames: ['pixels', 'target', 'pixel_relevance'], outputNames: ['logits', 'attn', 'attn_rel_classic_last', 'input_rel_classic'] };
  assert.throws(() => checkSessionContract(session, 'model.onnx'),
    /^Error: model\.onnx lacks outputs attn_grad, attn_rel expected by the explainer contract/);
  assert.doesNotThrow(() => checkSessionContract({ ...session, outputNames: [...session.outputNames, 'attn_grad', 'attn_rel'] }));
  assert.throws(() => checkSessionContract({ inputNames: ['pixels'], outputNames: [] }, 'f.onnx'), /f\.onnx lacks inputs target, pixel_relevance and outputs logits/);
});

// A session as onnxruntime describes DeiT-tiny's explainer graph (symbolic axes as names).
function deitSession() {
  const io = (name, shape) => ({ name, isTensor: true, type: 'float32', shape });
  const inputMetadata = [io('pixels', [1, 3, 224, 224]), io('target', ['K', 1000]), io('pixel_relevance', [])];
  const outputMetadata = [io('logits', [1, 1000]), io('attn', [12, 3, 197, 197]), io('attn_grad', ['K', 12, 3, 197, 197]),
    io('attn_rel', ['K', 12, 3, 197, 197]), io('attn_rel_classic_last', ['K', 3, 197, 197]), io('input_rel_classic', ['K', 'h', 'w'])];
  return { inputNames: inputMetadata.map((m) => m.name), outputNames: outputMetadata.map((m) => m.name), inputMetadata, outputMetadata };
}
const deitArchitecture = { blocks: 12, heads: 3, patch_size: 16, image_size: [224, 224], grid: [14, 14], tokens: 197, special_tokens: 1, num_classes: 1000 };

test('session contract: metadata that contradicts the graph\'s shapes names the field, both values and the tensor', () => {
  const check = (fields) => () => checkSessionContract(deitSession(), 'deit.onnx', { architecture: { ...deitArchitecture, ...fields } });
  assert.doesNotThrow(check({}));
  assert.throws(check({ blocks: 6 }), { message: 'the metadata does not match deit.onnx: architecture.blocks is 6 in the metadata, 12 in the graph (attn [12,3,197,197])' });
  assert.throws(check({ heads: 4 }), /architecture\.heads is 4 in the metadata, 3 in the graph \(attn \[12,3,197,197\]\)/);
  assert.throws(check({ num_classes: 10 }), /architecture\.num_classes is 10 in the metadata, 1000 in the graph \(target \[K,1000\]\)/);
  assert.throws(check({ tokens: 50 }), /architecture\.tokens is 50 in the metadata, 197 in the graph/);
  assert.throws(check({ image_size: [384, 224] }), /architecture\.image_size\[0\] is 384 in the metadata, 224 in the graph \(pixels \[1,3,224,224\]\)/);
  // Without onnxruntime's shape metadata (older versions) only the names are checked.
  const { inputNames, outputNames } = deitSession();
  const namesOnly = { inputNames, outputNames };
  assert.doesNotThrow(() => checkSessionContract(namesOnly, 'deit.onnx', { architecture: { ...deitArchitecture, blocks: 6 } }));
});

test('grid must be image_size / patch_size (issue 11: grid [7,28] passed and wrote 7×28 maps)', () => {
  const m = { ...tinyMetadata(), labels: Array.from({ length: 1000 }, (_, i) => `class ${i}`), label_names: undefined };
  m.architecture = { ...m.architecture, ...deitArchitecture };
  assert.equal(validateMetadata(m), m);
  m.architecture = { ...m.architecture, grid: [7, 28] };
  assert.throws(() => validateMetadata(m, 'deit.json'), { message: 'deit.json is not valid explainer metadata: "architecture.grid" [7,28] does not match image_size 224×224 / patch_size 16 = [14,14]' });
  m.architecture = { ...m.architecture, grid: [14, 14], special_tokens: -1 };
  assert.throws(() => validateMetadata(m), /"architecture\.special_tokens" must be a non-negative integer/);
});

test('token layout: pool and prefix-token flags are checked against special_tokens (contracts: issue 27)', async () => {
  assert.deepEqual(POOL_IDS, (await loadCore()).poolIds);
  const withArch = (fields) => {
    const m = { ...tinyMetadata(), labels: Array.from({ length: 1000 }, (_, i) => `class ${i}`), label_names: undefined };
    m.architecture = { ...deitArchitecture, ...fields };
    return m;
  };
  const fails = (fields, message) => assert.throws(() => validateMetadata(withArch(fields), 'm.json'),
    { message: `m.json is not valid explainer metadata: ${message}` });
  // Today's files: no pool, no flags.
  assert.deepEqual(tokenLayout(withArch({})), { grid: [14, 14], specialTokens: 1, pool: 'cls' });
  // DeiT distilled, DINOv2 with 4 registers, a timm avg-pool model without a class token.
  const distilled = withArch({ tokens: 198, special_tokens: 2, distilled: true, pool: 'cls+dist' });
  assert.deepEqual(tokenLayout(validateMetadata(distilled)), { grid: [14, 14], specialTokens: 2, pool: 'cls+dist' });
  const registers = withArch({ tokens: 201, special_tokens: 5, registers: 4, pool: 'cls+avg' });
  assert.deepEqual(tokenLayout(validateMetadata(registers)), { grid: [14, 14], specialTokens: 5, pool: 'cls+avg' });
  const noCls = withArch({ tokens: 196, special_tokens: undefined, cls_token: false, pool: 'avg' });
  assert.deepEqual(tokenLayout(validateMetadata(noCls)), { grid: [14, 14], specialTokens: 0, pool: 'avg' });
  fails({ pool: 'gap' }, '"architecture.pool" "gap" is not one of cls, cls+dist, avg, avg+prefix, cls+avg');
  fails({ registers: -1 }, '"architecture.registers" must be a non-negative integer');
  fails({ cls_token: 'yes' }, '"architecture.cls_token" must be true or false');
  fails({ tokens: 196, special_tokens: 0, cls_token: false },
    '"architecture.pool" cls reads the class token, but the model has none');
  // A file from before the flags: special_tokens 0 says there is no class token.
  fails({ tokens: 196, special_tokens: 0 }, '"architecture.pool" cls reads the class token, but the model has none');
  assert.deepEqual(tokenLayout(validateMetadata(withArch({ tokens: 196, special_tokens: 0, pool: 'avg' }))),
    { grid: [14, 14], specialTokens: 0, pool: 'avg' });
  fails({ pool: 'cls+dist' }, '"architecture.pool" cls+dist reads the distillation token, but the model has none');
  fails({ tokens: 198, special_tokens: 2, registers: 0 },
    '"architecture.special_tokens" 2 != 1, the prefix tokens of cls_token true, dist_token false, registers 0');
  fails({ cls_token: false, dist_token: true, special_tokens: 1, pool: 'avg' },
    '"architecture.dist_token" needs cls_token: the distillation token is token 1, after the class token');
});

test("'all' for a 1-block model leaves out the methods defined for more blocks; naming one is refused by name", async () => {
  const core = await loadCore();
  const deep = tinyMetadata();
  const one = { ...deep, architecture: { ...deep.architecture, blocks: 1 } };
  const two = graphMethodIds(core, deep);
  assert.ok(two.includes('ablation_second_block'));
  assert.deepEqual(two.filter((m) => !graphMethodIds(core, one).includes(m)), ['ablation_second_block']);
  assert.deepEqual(checkBlocksFor(core, one, ['transformer_attribution']), ['transformer_attribution']);
  assert.throws(() => checkBlocksFor(core, one, ['raw_attention', 'ablation_second_block']),
    { message: 'ablation_second_block: needs at least 2 blocks, the model has 1' });
});
