// `vit-relevance explain --text / --text-file` refuses bad input with one line and exit 2,
// before any graph opens and without writing anything: the text model here has valid
// metadata and a graph file that is not ONNX at all, so a run that got as far as opening a
// graph would fail with another message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { writeFile, truncate } from 'node:fs/promises';
import path from 'node:path';
import { runCli, tempDir } from './maps-support.js';
import { coreBuilt } from './explain-support.js';
import { MAX_TEXT_FILE_BYTES } from '../../runtime/node/text-file.js';
import { tinyExplainerOnnx, tinyMetadata } from './explainer-fixture.js';
import { writeTextModel } from './text-model-fixture.js';
import { loadExplainer } from '../../runtime/node/index.js';

const skip = coreBuilt ? false : 'the WebAssembly core is not built: run `npm run build`';

const model = writeTextModel(tempDir('vitrel-text-model-'));

async function textFile(content, name = 'texts.txt') {
  const file = path.join(tempDir('vitrel-text-in-'), name);
  await writeFile(file, content);
  return file;
}

// Fails with exit 2 and one line matching `pattern`; the output folder stays empty.
function refuses(args, pattern) {
  const out = path.join(tempDir('vitrel-text-out-'), 'out');
  const r = runCli(['explain', ...args, '--out', out]);
  assert.equal(r.status, 2, `exit 2 expected (got ${r.status}); stderr:\n${r.stderr}`);
  assert.match(r.stderr, pattern);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  assert.doesNotMatch(r.stderr, /not an ONNX|internal error/, 'refused before any graph opened');
  assert.ok(!existsSync(out) || readdirSync(out).length === 0, 'nothing written');
  return r;
}

test('an empty text', { skip }, () => {
  refuses(['--text', '', '--model', model], /--text needs a non-empty value/);
});

test('a whitespace-only text', { skip }, () => {
  refuses(['--text', ' \t\n  ', '--model', model], /--text is only whitespace/);
});

test('a text of control characters only', { skip }, () => {
  refuses(['--text', '\u0001\u0002\u200b\u007f', '--model', model], /--text holds only control or format characters/);
});

test('a text file with an empty line names the line', { skip }, async () => {
  const file = await textFile('a good film\n\nbad\n');
  refuses(['--text-file', file, '--model', model], /texts\.txt line 2 is empty/);
});

test('a text file line of whitespace names the line', { skip }, async () => {
  const file = await textFile('good\r\nbad\r\n   \r\n');
  refuses(['--text-file', file, '--model', model], /texts\.txt line 3 is only whitespace/);
});

test('invalid UTF-8 in a text file names the line', { skip }, async () => {
  const file = await textFile(Buffer.concat([Buffer.from('good\nvery '), Buffer.from([0xc3, 0x28]), Buffer.from(' bad\n')]));
  refuses(['--text-file', file, '--model', model], /texts\.txt line 2 is not valid UTF-8/);
});

test('a text file over the limit is refused before it is read', { skip }, async () => {
  const file = await textFile('good\n', 'huge.txt');
  await truncate(file, MAX_TEXT_FILE_BYTES + 1); // sparse: nothing to read would fit the limit
  refuses(['--text-file', file, '--model', model], /huge\.txt is 4\.0 MB: a text file may hold at most 4 MB/);
});

test('a class name the model does not have', { skip }, () => {
  refuses(['--text', 'a good film', '--model', model, '--class', 'joyful'], /--class "joyful" is not a class of this model/);
});

test('a contrast class the model does not have', { skip }, () => {
  refuses(['--text', 'a good film', '--model', model, '--contrast', '7'], /--contrast 7 is out of range/);
});

test('a text model given a photo', { skip }, () => {
  refuses(['some-photo.png', '--model', model], /tiny-text is a text model: it explains texts, not photos/);
});

test('an image model given --text', { skip }, async () => {
  const dir = tempDir('vitrel-image-model-');
  await writeFile(path.join(dir, 'tiny.onnx'), tinyExplainerOnnx());
  await writeFile(path.join(dir, 'tiny.json'), JSON.stringify(tinyMetadata()));
  refuses(['--text', 'a good film', '--model', path.join(dir, 'tiny.onnx')], /tiny is an image model: it explains photos, not texts/);
});

test('photo options with a text', { skip }, () => {
  refuses(['--text', 'a good film', '--model', model, '--crop', 'none'], /--crop applies to photos, not texts/);
});

test('a start layer beyond the model', { skip }, () => {
  refuses(['--text', 'a good film', '--model', model, '--start-layer', '2'], /--start-layer must be a block index 0\.\.1/);
});

test('the Node API: an image model refuses a text at open()', { skip }, async () => {
  const dir = tempDir('vitrel-image-model-');
  await writeFile(path.join(dir, 'tiny.onnx'), tinyExplainerOnnx());
  await writeFile(path.join(dir, 'tiny.json'), JSON.stringify(tinyMetadata()));
  const explainer = await loadExplainer({ model: path.join(dir, 'tiny.onnx') });
  try {
    assert.equal(explainer.kind, 'image');
    // open() of a photo is asynchronous, as the browser's: the refusal is its rejection.
    await assert.rejects(explainer.open({ text: 'a good film' }), /^Error: tiny is an image model: it explains photos, not texts/);
  } finally {
    await explainer.close();
  }
});
