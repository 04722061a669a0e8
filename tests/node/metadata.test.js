// Metadata and contract checks: a wrong file must fail early with a message naming the field.
import test from 'node:test';
import assert from 'node:assert/strict';
import { validateMetadata, checkSessionContract } from '../../runtime/metadata.js';
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
