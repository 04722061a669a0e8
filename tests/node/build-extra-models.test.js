// The build setting VITREL_MODELS (issue 27): exported model folders join the built-in
// model in the site's models/ and its index.json; a folder that is not one, or a name
// taken twice, stops the build with one line before any work. The model is a small
// random ViT exported with the CLI (tests/node/random-model.js); the page opening it runs
// in tests/browser/extra-models.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { projectPaths } from '../../scripts/paths.js';
import { buildSite } from '../../scripts/build/site.js';
import { extraModels, siteFiles } from '../../scripts/build/site-models.js';
import { exportRandomModel } from './random-model.js';
import { root, tempDir } from './maps-support.js';

const paths = projectPaths();
const builtInIndex = path.join(paths.models, 'index.json');
const skip = existsSync(builtInIndex) && existsSync(path.join(paths.wasm, 'vit_relevance_core.wasm'))
  ? false : 'needs build/models and build/wasm (npm run build)';
const NAME = 'random_extra_vit';
const built = skip ? [] : JSON.parse(readFileSync(builtInIndex, 'utf8')).models;
// the site carries every built model, the text model too (scripts/build/site.js)
const builtIn = built;

let dir;
let folder;
before(() => {
  if (skip) return;
  dir = tempDir('extra-models-');
  ({ folder } = exportRandomModel(dir, { name: NAME, width: 64, heads: 2, depth: 2, classes: 10 }));
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

const readIndex = (site) => JSON.parse(readFileSync(path.join(site, 'models', 'index.json'), 'utf8'));

test('an exported folder joins the built-in model in the site, copied once, gone when left out', { skip, timeout: 600_000 }, async () => {
  const site = path.join(dir, 'site');
  await buildSite({ ...paths, site }, { models: folder });
  const index = readIndex(site);
  assert.deepEqual(index.models.map((m) => m.name), [...builtIn.map((m) => m.name), NAME]);
  for (const text of built.filter((m) => m.kind === 'text')) {
    for (const f of [text.onnx, text.vocab, text.metadata]) assert.ok(existsSync(path.join(site, 'models', f)), f);
  }
  const entry = index.models.at(-1);
  assert.deepEqual(entry, JSON.parse(readFileSync(path.join(folder, 'index.json'), 'utf8')).models[0]);
  assert.ok(entry.split && entry.attribution, 'the CLI exports the page\'s split and attribution graphs');
  const files = siteFiles(entry);
  const copied = (f) => statSync(path.join(site, 'models', f));
  for (const f of files) assert.deepEqual(readFileSync(path.join(site, 'models', f)), readFileSync(path.join(folder, f)), f);

  // Up to date: a second build copies none of them again.
  const before = files.map((f) => copied(f).mtimeMs);
  await buildSite({ ...paths, site }, { models: folder });
  assert.deepEqual(files.map((f) => copied(f).mtimeMs), before);

  // Built without it: only the built-in models are listed and the extra model's files go.
  await buildSite({ ...paths, site }, { models: '' });
  assert.deepEqual(readIndex(site).models.map((m) => m.name), builtIn.map((m) => m.name));
  for (const f of files) assert.equal(existsSync(path.join(site, 'models', f)), false, f);
});

test('a folder that is not an exported model, or a name taken twice, is one line', { skip, timeout: 120_000 }, () => {
  const empty = path.join(dir, 'empty');
  mkdirSync(empty, { recursive: true });
  assert.throws(() => extraModels(empty), {
    message: `VITREL_MODELS: ${empty} is not an exported model folder (no index.json; make one with vit-relevance export SOURCE --out DIR)`,
  });
  const missing = path.join(dir, 'nowhere');
  assert.throws(() => extraModels(`${folder},${missing}`), { message: `VITREL_MODELS: ${missing} is not a folder` });
  assert.throws(() => extraModels(`${folder}, ${folder}`), {
    message: `VITREL_MODELS: the model name "${NAME}" in ${folder} is also ${folder}'s (export it again with --name)`,
  });
  assert.throws(() => extraModels(folder, [{ name: NAME }]), {
    message: `VITREL_MODELS: the model name "${NAME}" in ${folder} is also the built-in model's (export it again with --name)`,
  });
  const broken = path.join(dir, 'broken');
  cpSync(folder, broken, { recursive: true });
  const weights = JSON.parse(readFileSync(path.join(broken, 'index.json'), 'utf8')).models[0].split.weights;
  rmSync(path.join(broken, weights));
  assert.throws(() => extraModels(broken), {
    message: `VITREL_MODELS: ${path.join(broken, 'index.json')} lists ${weights}, which is missing (export the folder again)`,
  });
});

test('npm run build stops on a wrong folder before any step, and the site step before any file', { skip, timeout: 120_000 }, async () => {
  const empty = path.join(dir, 'empty-build');
  mkdirSync(empty, { recursive: true });
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.js')], {
    encoding: 'utf8', env: { ...process.env, VITREL_MODELS: empty },
  });
  assert.equal(r.status, 1);
  assert.equal(r.stdout, '', 'no step started');
  assert.equal(r.stderr, `build: VITREL_MODELS: ${empty} is not an exported model folder (no index.json; make one with vit-relevance export SOURCE --out DIR)\n`);
  const site = path.join(dir, 'site-never');
  await assert.rejects(buildSite({ ...paths, site }, { models: `${folder},${folder}` }), /VITREL_MODELS: the model name/);
  assert.equal(existsSync(site), false);
});
