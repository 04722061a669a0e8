// `vit-relevance explain` refuses bad inputs with one clear line: files that are not ONNX,
// graphs without the explainer outputs, missing metadata, non-images, wrong tensors,
// unknown class names. Uses the tiny hand-written graph (no build needed) and, when it is
// built, the real plain forward graph.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatNpy } from '../../runtime/npy.js';
import { root, runCli, tempDir } from './maps-support.js';
import { coreBuilt, deitForward, deitModel, goldenInput } from './explain-support.js';
import { tinyExplainerOnnx, tinyMetadata } from './explainer-fixture.js';

const skip = coreBuilt ? false : 'the WebAssembly core is not built: run `npm run build`';

// A folder with GRAPH.onnx (given bytes) and GRAPH.json (tiny metadata); returns the .onnx path.
async function modelDir(bytes, name = 'model') {
  const dir = tempDir('vitrel-explain-err-');
  await writeFile(path.join(dir, `${name}.onnx`), bytes);
  await writeFile(path.join(dir, `${name}.json`), JSON.stringify(tinyMetadata()));
  return path.join(dir, `${name}.onnx`);
}

async function tinyInput(shape = [1, 3, 4, 4]) {
  const file = path.join(tempDir('vitrel-explain-in-'), 'input.npy');
  await writeFile(file, formatNpy({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)), shape }));
  return file;
}

function explain(args) {
  return runCli(['explain', ...args, '--out', tempDir('vitrel-explain-out-')]);
}

function assertFails(r, pattern) {
  assert.notEqual(r.status, 0, `should fail; stdout:\n${r.stdout}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /, 'a user error, not a stack trace');
}

test('a model file that is not ONNX', { skip }, async () => {
  const model = await modelDir(new TextEncoder().encode('this is not a protobuf'));
  assertFails(explain([await tinyInput(), '--model', model]), /model\.onnx is not an ONNX model: /);
});

test('an ONNX graph without the explainer outputs (tiny graph)', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx({ outputs: ['logits', 'attn', 'attn_rel_classic_last', 'input_rel_classic'] }));
  assertFails(explain([await tinyInput(), '--model', model]), /model\.onnx lacks outputs attn_grad, attn_rel expected by the explainer contract/);
});

test('a graph exported before attnlrp and cp_lrp cannot compute them (tiny graph)', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx());
  assertFails(explain([await tinyInput(), '--model', model, '--method', 'gradcam,attnlrp,cp_lrp']),
    /model\.onnx cannot compute attnlrp, cp_lrp: an export older than these methods lacks input_rel_attnlrp, input_rel_cp_lrp \(re-export it: npm run build\)/);
});

test('the plain forward graph is not an explainer graph', {
  skip: skip || (existsSync(deitForward) ? false : `${path.relative(root, deitForward)} is not built`),
}, async () => {
  const dir = tempDir('vitrel-explain-err-');
  const model = path.join(dir, 'deit_tiny_patch16_224.forward.onnx');
  await copyFile(deitForward, model);
  await copyFile(deitModel.replace(/\.onnx$/, '.json'), path.join(dir, 'deit_tiny_patch16_224.forward.json'));
  assertFails(explain([goldenInput, '--model', model]),
    // (and the optional switches and outputs its metadata declares, in an export that has them)
    /deit_tiny_patch16_224\.forward\.onnx lacks inputs target, pixel_relevance(, attnlrp_relevance, cp_lrp_relevance)? and outputs attn, attn_grad, attn_rel, attn_rel_classic_last, input_rel_classic(, input_rel_attnlrp, input_rel_cp_lrp)? expected by the explainer contract/);
});

test('a graph without its metadata JSON', { skip }, async () => {
  const dir = tempDir('vitrel-explain-err-');
  const model = path.join(dir, 'lonely.onnx');
  await writeFile(model, tinyExplainerOnnx());
  assertFails(explain([await tinyInput(), '--model', model]), /metadata .*lonely\.json not found: an explainer graph needs its \.json beside the \.onnx/);
});

test('an input that is not an image names the file', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx());
  const notImage = path.join(root, 'package.json');
  assertFails(explain([notImage, '--model', model]), /package\.json is not a readable image/);
  assertFails(explain([path.join(root, 'no-such-photo.jpg'), '--model', model]), /cannot read image .*no-such-photo\.jpg: no such file/);
});

test('a .npy input of the wrong shape', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx());
  assertFails(explain([await tinyInput([3, 5, 5]), '--model', model]), /input\.npy: input tensor has shape \[3,5,5\], the model takes \[3,4,4\] or \[1,3,4,4\]/);
});

test('unknown and ambiguous class names', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx());
  const input = await tinyInput();
  assertFails(explain([input, '--model', model, '--class', 'tabbby']), /--class "tabbby" is not a class of this model\. Close matches: 0 \(tabby, tabby cat\)/);
  assertFails(explain([input, '--model', model, '--class', 'crane']), /"crane" is ambiguous/);
  assertFails(explain([input, '--model', model, '--class', '9']), /--class 9 is out of range/);
});

test('usage mistakes exit with 2', { skip }, async () => {
  const model = await modelDir(tinyExplainerOnnx());
  const r = explain(['--model', model]);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /give an image, a \.npy tensor or --text to explain/);
  const r2 = explain([await tinyInput(), '--model', model, '--method', 'nope']);
  assert.equal(r2.status, 2);
  assert.match(r2.stderr, /unknown method "nope"/);
  const r3 = explain([await tinyInput(), '--model', model, '--colormap', 'rainbow']);
  assert.equal(r3.status, 2);
  assert.match(r3.stderr, /unknown colormap "rainbow"; known: jet/);
  const r4 = explain([await tinyInput(), '--model', model, '--crop', 'middle']);
  assert.equal(r4.status, 2);
  assert.match(r4.stderr, /--crop must be center or none, got "middle"/);
  const r5 = explain([await tinyInput(), '--model', model, '--crop', 'none']);
  assert.equal(r5.status, 2);
  assert.match(r5.stderr, /--crop none applies to photos; .*input\.npy is already the model's input/);
});
