// `vit-relevance explain --text / --text-file` and `attribute --text` on the built default
// text model: the prediction and each method's top tokens printed (no colour codes off a
// terminal), maps.json in its documented layout, a self-contained report.html, a long text
// explained truncated with a notice, and the attribution over tokens as JSON + SVG.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../../runtime/node/index.js';
import { runCli, tempDir } from './maps-support.js';

const skip = existsSync(DEFAULT_TEXT_MODEL) ? false : 'the default text model is not built: run `npm run build`';
const TEXT = 'The acting is superb, but the plot is a complete mess.';
const METHODS = ['transformer_attribution', 'raw_attention', 'lrp_full'];

const readJson = async (dir, name) => JSON.parse(await readFile(path.join(dir, name), 'utf8'));

test('explain --text prints the prediction and top tokens, writes maps.json and report.html', { skip, timeout: 600_000 }, async () => {
  const out = tempDir('vitrel-text-out-');
  const r = runCli(['explain', '--text', TEXT, '--class', 'positive', '--class', 'negative', '--method', METHODS.join(','), '--start-layer', 'last', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /prediction: (negative|positive) \d+\.\d%, (negative|positive) \d+\.\d%/);
  for (const m of METHODS) assert.match(r.stdout, new RegExp(`^ {4}${m} +\\S`, 'm'));
  assert.ok(!r.stdout.includes('\u001b['), 'no colour codes off a terminal');

  const doc = await readJson(out, 'maps.json');
  assert.deepEqual(Object.keys(doc), ['model', 'start_layer', 'text', 'tokens', 'ids', 'offsets', 'words', 'top5', 'targets']);
  assert.equal(doc.start_layer, 3, 'last = B − 1');
  const S = doc.tokens.length;
  assert.equal(doc.tokens[0], '[CLS]');
  assert.equal(doc.tokens[S - 1], '[SEP]');
  assert.equal(doc.ids.length, S);
  doc.offsets.forEach(([s, e], i) => {
    if (i > 0 && i < S - 1) assert.equal(doc.text.slice(s, e).toLowerCase(), doc.tokens[i].replace(/^##/, ''), `token ${i}`);
  });
  assert.deepEqual(doc.targets.map((t) => t.label), ['positive', 'negative']);
  for (const t of doc.targets) {
    assert.deepEqual(Object.keys(t), ['id', 'label', 'prob', 'rank', 'maps', 'word_maps']);
    assert.deepEqual(Object.keys(t.maps), METHODS);
    for (const m of METHODS) {
      assert.deepEqual(t.maps[m].shape, [S]);
      assert.equal(t.maps[m].data.length, S);
      assert.equal(t.word_maps[m].length, doc.words.length);
    }
  }
  const html = await readFile(path.join(out, 'report.html'), 'utf8');
  assert.doesNotMatch(html, /<script|src=|href=/i, 'self-contained, no script');
  assert.match(html, /Content-Security-Policy" content="default-src 'none'; style-src 'sha256-/);
  assert.match(html, /superb/);
});

test('explain --text-file writes a texts list, contrasts; a long text is explained truncated, with a notice', { skip, timeout: 600_000 }, async () => {
  const dir = tempDir('vitrel-text-file-');
  const long = Array.from({ length: 400 }, (_, i) => `scene ${i} was fine.`).join(' ');
  const file = path.join(dir, 'texts.txt');
  await writeFile(file, `${TEXT}\r\n${long}\n`);
  const out = path.join(dir, 'out');
  const r = runCli(['explain', '--text-file', file, '--method', 'transformer_attribution,raw_attention', '--class', 'positive', '--contrast', 'negative', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /note: the text is longer than the model reads \(512 tokens with \[CLS\] and \[SEP\]\): its last \d+ tokens/);
  const doc = await readJson(out, 'maps.json');
  assert.equal(doc.texts.length, 2);
  assert.equal(doc.texts[0].text, TEXT, 'the \\r of a CRLF line end is not part of the text');
  // Why positive rather than negative: the methods that can contrast (raw attention cannot).
  const [target] = doc.texts[0].targets;
  assert.equal(target.label, 'positive');
  assert.equal(target.contrast.label, 'negative');
  assert.deepEqual(Object.keys(target.maps), ['transformer_attribution']);
  assert.equal(typeof target.maps.transformer_attribution.correlation, 'number');
  assert.equal(doc.texts[1].tokens.length, 512);
  assert.ok(doc.texts[1].truncated.tokens > 0);
  assert.ok(doc.texts[1].truncated.at < long.length);
});

test('attribute --text writes the attribution over tokens as JSON and SVG', { skip, timeout: 600_000 }, async () => {
  const out = tempDir('vitrel-text-attr-');
  const r = runCli(['attribute', '--text', 'I expected to hate it, and I didn\'t.', '--steps', '4', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const doc = await readJson(out, 'attribution.json');
  assert.equal(doc.blocks.length, 4);
  assert.equal(doc.blocks[0].headImportance.length, 4);
  assert.equal(doc.attattr.shape[0], doc.tokens.length);
  assert.equal(doc.attattr_words.length, doc.words.length);
  assert.equal(typeof doc.tree.topToken, 'string');
  for (const f of ['heads.svg', 'tree.svg']) assert.match(await readFile(path.join(out, f), 'utf8'), /^<svg xmlns/);
});

test('explain --text --method attattr gives attribute --text\'s attattr map and word map, and contrasts it', { skip, timeout: 600_000 }, async () => {
  const dir = tempDir('vitrel-text-attattr-');
  const text = 'I expected to hate it, and I didn\'t.';
  const r = runCli(['attribute', '--text', text, '--class', 'positive', '--out', path.join(dir, 'attr')]);
  assert.equal(r.status, 0, r.stderr);
  const attributed = await readJson(path.join(dir, 'attr'), 'attribution.json');
  const e = runCli(['explain', '--text', text, '--class', 'positive', '--method', 'attattr', '--out', path.join(dir, 'maps')]);
  assert.equal(e.status, 0, e.stderr);
  assert.match(e.stdout, /^ {4}attattr +\S/m);
  const [target] = (await readJson(path.join(dir, 'maps'), 'maps.json')).targets;
  assert.deepEqual(Object.keys(target.maps), ['attattr'], 'the stand-in map of the prediction run is dropped');
  // The same Attr (m = 20 both), up to the order of float32 sums in onnxruntime's runs:
  // measured up to 3.9e-6 of the map's largest value between the two commands on this
  // machine; 1e-4 leaves 25× for another CPU's kernels (a wrong class or m moves it by far more).
  const near = (a, b, what) => a.forEach((v, i) => assert.ok(Math.abs(v - b[i]) <= 1e-4 * Math.max(...b.map(Math.abs)), `${what} ${i}: ${v} vs ${b[i]}`));
  near(target.maps.attattr.data, attributed.attattr.data, 'token');
  near(target.word_maps.attattr, attributed.attattr_words, 'word');
  const c = runCli(['explain', '--text', text, '--class', 'positive', '--contrast', 'negative', '--method', 'attattr,raw_attention', '--out', path.join(dir, 'contrast')]);
  assert.equal(c.status, 0, c.stderr);
  const [contrasted] = (await readJson(path.join(dir, 'contrast'), 'maps.json')).targets;
  assert.deepEqual(Object.keys(contrasted.maps), ['attattr'], 'raw attention cannot contrast');
  assert.equal(typeof contrasted.maps.attattr.correlation, 'number');
  assert.notDeepEqual(contrasted.maps.attattr.data, target.maps.attattr.data);
});

test('the Node API refuses an empty text and a photo in one line', { skip, timeout: 600_000 }, async () => {
  const explainer = await loadExplainer({ model: DEFAULT_TEXT_MODEL });
  try {
    assert.equal(explainer.kind, 'text');
    assert.throws(() => explainer.open('  '), /^Error: the text is only whitespace: give a text to explain$/);
    assert.throws(() => explainer.open(/** @type {any} */ ({ pixels: new Float32Array(3) })), /is a text model: it explains texts, not photos/);
  } finally {
    await explainer.close();
  }
});
