// The page's check of a model folder the visitor opens (web/page/lib/model-folder.js), on the
// built DeiT-tiny folder: what it keeps (the files the page reads, no more), and the one
// line for each folder it refuses before anything is read in bulk.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, openAsBlob, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectPaths } from '../../scripts/paths.js';
import { checkModelFolder } from '../../web/page/lib/model-folder.js';
import { pageFiles } from '../../web/lib/model-files.js';

const { models } = projectPaths();
const skip = existsSync(path.join(models, 'index.json')) ? false : 'no built model (npm run build)';
const entry = () => JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models[0];
const text = (value) => new Blob([typeof value === 'string' ? value : JSON.stringify(value)]);

// The built folder as the page gets it, `change(files)` altering its file map.
async function folder(change = () => {}) {
  const files = new Map();
  for (const name of readdirSync(models)) files.set(name, await openAsBlob(path.join(models, name)));
  files.set('index.json', text({ models: [entry()] })); // DeiT-tiny's folder (build/models holds the text model too)
  change(files);
  return { folder: 'deit', files };
}
const plenty = () => ({ quota: 1e12, usage: 0 });
// A folder change: the index's one entry with `fields` replaced.
const withEntry = (fields) => (files) => files.set('index.json', text({ models: [{ ...entry(), ...fields }] }));

test('an exported folder: the files the page reads, its classes, input size and bytes', { skip }, async () => {
  const [model] = await checkModelFolder(await folder(), { estimate: plenty });
  const e = entry();
  assert.equal(model.entry.name, e.name);
  assert.deepEqual(model.files.map(([name]) => name), pageFiles(e));
  assert.ok(!model.files.some(([name]) => name === e.forward_onnx || name === e.attribution.masked || name === e.onnx),
    'not the graphs with their own copy of the weights, nor the head-masked forward');
  assert.deepEqual({ classes: model.info.classes, imageSize: model.info.imageSize }, { classes: 1000, imageSize: [224, 224] });
  assert.equal(model.info.bytes, model.files.reduce((n, [, f]) => n + f.size, 0));
});

test('a folder it refuses gets one line naming the folder and the problem', { skip }, async () => {
  const e = entry();
  const metadata = JSON.parse(readFileSync(path.join(models, e.metadata), 'utf8'));
  const cases = [
    [(f) => f.delete('index.json'), /^“deit” is not an exported model folder: it has no index\.json \(vit-relevance export writes one\)$/],
    [(f) => f.set('index.json', text('{"models": [')), /^“deit”\/index\.json is not valid JSON$/],
    [(f) => f.set('index.json', text({ models: [] })), /^“deit”\/index\.json lists no model$/],
    [(f) => f.delete(e.split.weights), new RegExp(`^“deit” lacks ${e.split.weights}, which its index\\.json names for ${e.name}$`)],
    [(f) => f.set(e.metadata, text('{ nope')), new RegExp(`^“deit”: the metadata ${e.metadata} is not valid JSON$`)],
    [(f) => f.set(e.metadata, text({ ...metadata, labels: ['one'] })),
      new RegExp(`^“deit”: ${e.metadata} is not valid explainer metadata: "labels" has 1 entries, architecture.num_classes is 1000`)],
    // Names become the keys the model is kept under: plain names only, before anything is read.
    ...['..', '.', 'a/b', '', 'x'.repeat(200)].filter(Boolean).map((name) => [withEntry({ name }),
      /^“deit”\/index\.json names a model ".*": a model's name is letters, digits, '\.', '_' and '-', starting with a letter or digit$/]),
    [(f) => { withEntry({ split: { ...e.split, weights: 'https:evil.example' } })(f); f.set('https:evil.example', f.get(e.split.weights)); },
      new RegExp(`^“deit”/index\\.json names a file "https:evil\\.example" for ${e.name}: not a plain file name$`)],
    [(f) => f.set('index.json', text({ models: [e, { ...e, name: 'copy' }] })),
      new RegExp(`^“deit”/index\\.json lists ${e.name} and copy over the same file ${e.metadata}: each model of a folder has its own files$`)],
    [(f) => f.set('index.json', text({ models: [e, e] })), new RegExp(`^“deit”/index\\.json lists the model ${e.name} twice$`)],
    [(f) => f.set(e.split.weights, { size: 2 ** 31 }), new RegExp(`^“deit”/${e.split.weights} is 2048\\.0 MB: the page reads files of up to 2000\\.0 MB$`)],
  ];
  for (const [change, message] of cases) {
    await assert.rejects(checkModelFolder(await folder(change), { estimate: plenty }), (err) => {
      assert.match(err.message, message);
      assert.equal(err.message.split('\n').length, 1);
      return true;
    });
  }
  await assert.rejects(checkModelFolder(await folder(), { taken: [e.name], estimate: plenty }),
    new RegExp(`^Error: this site already has a model named ${e.name}: export yours with --name to tell them apart$`));
  const need = pageFiles(e).reduce((n, f) => n + readFileSync(path.join(models, f)).byteLength, 0);
  const mb = (n) => (n / 1048576).toFixed(1);
  await assert.rejects(checkModelFolder(await folder(), { estimate: () => Promise.resolve({ quota: need, usage: need / 2 }) }),
    new RegExp(`^Error: “deit” needs ${mb(need)} MB of the browser's storage, but this site has only ${mb(need / 2)} MB left$`));
  // A text model's folder is taken as a photo model's: the page explains texts too.
  const [textModel] = await checkModelFolder(await folder(withEntry({ kind: 'text' })), { estimate: plenty });
  assert.equal(textModel.entry.kind, 'text');
  // Room to the byte is enough; no estimate (no storage API) checks nothing.
  await checkModelFolder(await folder(), { estimate: () => Promise.resolve({ quota: need + 1000, usage: 1000 }) });
  await checkModelFolder(await folder(), { estimate: () => undefined });
});
