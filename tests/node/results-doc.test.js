// `npm run results` (scripts/results.js): docs/results.md's tables are made by each
// evaluation's own report code from a real run's JSON, and every block names a run folder
// that a command on the page writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fillResults } from '../../scripts/results.js';
import { root, runCli, shared, tempDir } from './maps-support.js';

const model = path.join(root, 'build', 'models', 'deit_tiny_patch16_224.onnx');
const samples = path.join(shared, 'imagenet', 'samples');
const skip = !existsSync(model) ? 'run `npm run build`' : !existsSync(samples) && 'no ../shared/imagenet/samples';

test('a block is written from its run folder\'s JSON by the evaluation\'s report code; a missing run keeps its block', { skip, timeout: 600_000 }, async () => {
  const dir = tempDir('vitrel-results-');
  const images = path.join(dir, 'images');
  await mkdir(images);
  for (const f of ['n01440764_tench.JPEG', 'n01484850_great_white_shark.JPEG']) await copyFile(path.join(samples, f), path.join(images, f));
  const r = runCli(['eval', 'perturbation', '--images', images, '--labels', path.join(shared, 'imagenet', 'synset_words.txt'),
    '--model', model, '--methods', 'raw_attention', '--out', path.join(dir, 'runs', 'perturbation')]);
  assert.equal(r.status, 0, r.stderr);
  const page = 'intro\n<!-- results: perturbation -->\nstale\n<!-- /results -->\nmiddle\n<!-- results: pointing-game -->\nkept\n<!-- /results -->\n';
  const { text, written, kept } = await fillResults(page, path.join(dir, 'runs'));
  assert.deepEqual(written, ['perturbation']);
  assert.deepEqual(kept, ['pointing-game']);
  assert.ok(!text.includes('stale'));
  assert.match(text, /<!-- results: pointing-game -->\nkept\n<!-- \/results -->/);
  // The table is the run's own report's: the same lines as the perturbation.md it wrote.
  const report = await readFile(path.join(dir, 'runs', 'perturbation', 'perturbation.md'), 'utf8');
  const table = report.split('\n').filter((l) => l.startsWith('|'));
  assert.ok(table.length >= 3);
  for (const line of table) assert.ok(text.includes(line), line);
  assert.match(text, /\*\*Perturbation AUC: deit_tiny_patch16_224, 2 photos/);
  // Written again from the same run: the same text.
  assert.equal((await fillResults(text, path.join(dir, 'runs'))).text, text);
});

test('every block of docs/results.md names a run folder its commands write', () => {
  const doc = readFileSync(path.join(root, 'docs', 'results.md'), 'utf8');
  const names = [...doc.matchAll(/<!-- results: ([\w./ -]+?) -->/g)].flatMap((m) => m[1].split(' '));
  assert.ok(names.length >= 3);
  for (const name of names) assert.match(doc, new RegExp(`--out runs/${name}\\b`), `no command on the page writes runs/${name}`);
});
