// Where the Node side finds a model's attribution graphs (runtime/node/open-attribution.js):
// the names its folder's index.json lists (a text model's read the shared weights file),
// else the exporter's names beside a graph on its own; a listed name that leaves the
// folder is refused, naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { attributionPaths } from '../../runtime/node/open-attribution.js';
import { root, tempDir } from './maps-support.js';

const text = path.join(root, 'build', 'models', 'bert-mini-sst2-movies.onnx');

test("a text model's attribution graphs read its shared weights file, as its index entry says", { skip: !existsSync(text) && 'needs npm run build' }, () => {
  const files = attributionPaths(text, 4);
  assert.equal(files.weights, text.replace(/\.onnx$/, '.weights.bin'));
  assert.deepEqual(files.blocks, [0, 1, 2, 3].map((b) => text.replace(/\.onnx$/, `.attr${b}.onnx`)));
  for (const f of [files.states, files.masked, files.weights, ...files.blocks]) assert.ok(existsSync(f), f);
});

const image = path.join(root, 'build', 'models', 'deit_tiny_patch16_224.onnx');

test('an image model exported with its split graphs: its attribution graphs read their weights file, no file of their own', { skip: !existsSync(image) && 'needs npm run build' }, () => {
  const files = attributionPaths(image, 12);
  assert.equal(files.weights, image.replace(/\.onnx$/, '.weights.bin'));
  for (const f of [files.states, files.masked, files.weights, ...files.blocks]) assert.ok(existsSync(f), f);
  assert.ok(!existsSync(image.replace(/\.onnx$/, '.attribution.bin')), 'an attribution.bin beside it');
});

test('a graph on its own: the exporter names beside it', () => {
  const graph = path.join(tempDir('attr-paths-'), 'lone.onnx');
  const files = attributionPaths(graph, 2);
  assert.equal(files.weights, graph.replace(/\.onnx$/, '.attribution.bin'));
  assert.equal(files.blocks.length, 2);
});

test('an index.json naming an attribution file outside the folder is refused', () => {
  const dir = tempDir('attr-paths-');
  const attribution = { states: 'm.states.onnx', blocks: ['m.attr0.onnx'], masked: 'm.masked.onnx', weights: '../m.weights.bin' };
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ models: [{ name: 'm', onnx: 'm.onnx', attribution }] }));
  assert.throws(() => attributionPaths(path.join(dir, 'm.onnx'), 1), /lists "\.\.\/m\.weights\.bin" among m's attribution graphs: not a file beside m\.onnx/);
});
