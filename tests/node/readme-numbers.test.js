// Every number the README states that a file here can confirm, read from that file: a
// README that drifts from what the tool does fails here, not in a newcomer's hands.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { root, shared } from './maps-support.js';
import { MAX_TEXT_FILE_BYTES } from '../../runtime/node/text-file.js';

const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const source = (file) => readFileSync(path.join(root, file), 'utf8');
// The README's one number that `pattern` (a RegExp with one group) captures.
function stated(pattern) {
  const m = readme.match(pattern);
  assert.ok(m, `the README no longer says ${pattern}: update this test with it`);
  return m[1];
}
const textModelDir = path.join(shared, 'models', 'bert-mini-sst2-movies');
const deitMetadata = path.join(root, 'build', 'models', 'deit_tiny_patch16_224.json');

test('the element\'s default width is the one the README gives', () => {
  const px = stated(/Each element is (\d+) px wide by default/);
  assert.match(source('web/element/style.js'), new RegExp(`width: var\\(--vit-relevance-width, ${px}px\\)`));
});

test('the parity check\'s limit is the one the README gives', () => {
  const limit = stated(/PyTorch forward of that layout \(within ([\d.e-]+)\)/);
  assert.equal(Number(source('models/exporter/parity.py').match(/^LIMIT = ([\d.e-]+)$/m)[1]), Number(limit));
});

test('a text file\'s size limit is the one the README gives', () => {
  assert.equal(Number(stated(/no empty line, at most (\d+) MB/)) * 2 ** 20, MAX_TEXT_FILE_BYTES);
});

test('npm start\'s default port is the one the README gives', () => {
  const port = stated(/\| `PORT` \| `(\d+)` \|/);
  assert.match(readme, new RegExp(`http://localhost:${port}`));
  assert.match(source('scripts/serve.js'), new RegExp(`return ${port};`));
});

test('the default model\'s class count is the one the README gives', { skip: !existsSync(deitMetadata) && 'run `npm run build`' }, () => {
  const classes = Number(stated(/type to search all (\d+)/));
  const metadata = JSON.parse(readFileSync(deitMetadata, 'utf8'));
  assert.equal(metadata.labels.length, classes);
});

test('the default text model is what the README says it is', { skip: !existsSync(textModelDir) && `no ${textModelDir}` }, () => {
  const config = JSON.parse(readFileSync(path.join(textModelDir, 'config.json'), 'utf8'));
  const [layers, width, heads, positions] = stated(/small BERT \((\d+ layers, \d+ wide, \d+ heads, \d+ positions)/).match(/\d+/g).map(Number);
  assert.deepEqual([layers, width, heads, positions],
    [config.num_hidden_layers, config.hidden_size, config.num_attention_heads, config.max_position_embeddings]);
  const { evaluation } = JSON.parse(readFileSync(path.join(textModelDir, 'training.json'), 'utf8'));
  const sst2 = stated(/It reaches ([\d.]+) % on SST-2 dev/);
  const movies = stated(/% on SST-2 dev and ([\d.]+) % on the Movie/);
  assert.equal((evaluation.movies_test_accuracy * 100).toFixed(1), movies);
  assert.equal((Number(evaluation.note.match(/SST-2 dev ([\d.]+)/)[1]) * 100).toFixed(1), sst2);
});

test('the sample photos the results were measured on number as the README says', { skip: !existsSync(path.join(shared, 'imagenet', 'samples')) && 'no ../shared/imagenet/samples' }, () => {
  const count = Number(stated(/DeiT-tiny's results on the (\d+) sample photos/));
  const photos = readdirSync(path.join(shared, 'imagenet', 'samples')).filter((f) => /\.(jpe?g|png)$/i.test(f));
  assert.equal(photos.length, count);
});
