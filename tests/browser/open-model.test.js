// “Open your model…” (issue 27): a small random ViT in timm's hub layout, exported by the
// CLI here, is opened in the page from its folder and explains a photo with its own class
// names (top-5, class search, contrast, the grid of every method, the Attribution panel);
// it is kept in this browser and read from there, never requested from the server; a
// reload reopens it; removed, it is gone, and a link naming it then says it is not in this
// browser. The hostile table's folders (not a model, a file missing, unreadable metadata, a
// graph from another export, a name or file name that is no plain name, models over the same
// files, a file too large, metadata its graphs contradict) each get their one line, and
// what was kept and open stays as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { skipReason, startSite, launch, openPage, screenshot, sample, waitForHeat, choosePhoto, copiedMap, paths } from './harness.js';
import { CASES } from '../hostile/cases.js';

const skip = skipReason() ?? false;
const NAME = 'pocket-vit';
const LABELS = ['red fox', 'snow owl', 'sea otter', 'box turtle'];
// Depth 2, width 48, 3 heads, 8 px patches on a 32×48 input: an export takes a minute here.
const CHECKPOINT = `
import json, sys
from pathlib import Path
sys.path[:0] = ["tests/models", "."]
from layout_writers import random_checkpoint, write_timm_hub
from models.exporter.config import ViTConfig
cfg = ViTConfig(name="t", depth=2, heads=3, embed_dim=48, patch_size=8, image_size=(32, 48), num_classes=${LABELS.length})
write_timm_hub(Path(sys.argv[1]), random_checkpoint(cfg, seed=3), "vit_test", {"num_heads": 3, "img_size": [32, 48]},
               {"input_size": [3, 32, 48]}, label_names=json.loads(sys.argv[2]))
`;

let dir;
let model; // the exported folder
let site;
let browser;

function run(command, args) {
  const r = spawnSync(command, args, { cwd: paths.root, encoding: 'utf8', timeout: 900_000 });
  assert.equal(r.status, 0, `${command} ${args.join(' ')}: ${r.stderr}`);
}

before(async () => {
  if (skip) return;
  dir = mkdtempSync(path.join(os.tmpdir(), 'vitrel-open-model-'));
  const hub = path.join(dir, 'hub');
  model = path.join(dir, NAME);
  run(process.env.VITREL_PYTHON ?? '/usr/bin/python3', ['-c', CHECKPOINT, hub, JSON.stringify(LABELS)]);
  run(process.execPath, [path.join(paths.root, 'cli', 'vit-relevance.js'), 'export', hub, '--out', model, '--name', NAME]);
  site = await startSite();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Ready and chosen in the picker (a folder's model is listed once it opened with every graph checked).
const ready = (page, name) => page.waitForFunction((n) => {
  const chosen = document.querySelector('#model-select').selectedOptions[0]?.textContent ?? '';
  return document.body.dataset.model === n && document.body.dataset.modelReady === 'true' && (chosen === n || chosen.startsWith(`${n} ·`));
}, name);
const top5Labels = (page) => page.$$eval('#top5 button span:first-child', (spans) => spans.map((s) => s.textContent));
const cacheKeys = (page) => page.evaluate(async () => (await (await caches.open('vit-relevance-models-v1')).keys()).map((r) => r.url));

test('an exported folder opens through “Open your model…”, explains with its labels, survives a reload and is removed', { skip }, async () => {
  const { page, context, requests, offOrigin, errors } = await openPage(browser, site.url);
  try {
    const siteModel = await page.waitForFunction(() => document.body.dataset.modelReady === 'true' && document.body.dataset.model)
      .then((h) => h.jsonValue());
    await page.setInputFiles('#model-folder', model);
    await ready(page, NAME);
    assert.match(await page.$eval('#model-select', (s) => s.selectedOptions[0].textContent),
      new RegExp(`^${NAME} · ${LABELS.length} classes · 48×32 · \\d+\\.\\d MB · in this browser$`));
    assert.equal(await page.$eval('#model-select option:checked', (o) => o.parentElement.label), 'In this browser');
    assert.equal(await page.isVisible('#model-remove'), true);

    // A photo: the prediction and the map come from this model, with its class names.
    await choosePhoto(page, sample('catdog.png'));
    await page.waitForSelector('#view-single canvas[data-rendered="heat"]');
    const top = await top5Labels(page);
    assert.equal(top.length, LABELS.length, 'four classes: a top-4');
    assert.deepEqual([...top].sort(), [...LABELS].sort());
    const map = await copiedMap(page); // the single view's map, as "Copy map JSON" gives it
    const grid = [map.rows, map.cols];
    const top1 = Number(await page.getAttribute('#top5 button >> nth=0', 'data-class-id'));
    assert.deepEqual(grid, [4, 6], 'the model\'s own 4×6 patch grid');
    await screenshot(page, 'open-model-single');

    // The class search finds its labels; the contrast and the grid work with four classes.
    const otter = LABELS.indexOf('sea otter');
    const other = otter === top1 ? LABELS.indexOf('red fox') : top1;
    await page.fill('#class-a', 'otter');
    await page.click(`#class-a-list-${otter}`);
    await waitForHeat(page, `c${otter}`);
    assert.equal(await page.inputValue('#class-a'), `sea otter (${otter})`);
    await page.fill('#class-b', LABELS[other]);
    await page.click(`#class-b-list-${other}`);
    await page.check('#contrastive');
    await waitForHeat(page, `c${otter}-${other}`);
    await page.uncheck('#contrastive');
    await page.click('#tab-grid');
    const methods = await page.$$eval('#method option', (os) => os.filter((o) => o.value !== 'attattr').length);
    await page.waitForFunction((n) => document.querySelectorAll('#view-grid canvas[data-rendered="heat"]').length >= n, methods);
    // The Attribution panel: both blocks, few steps; its map joins the grid.
    await page.fill('#attr-steps', '2');
    await page.dispatchEvent('#attr-steps', 'change');
    await page.click('#attr-run');
    await page.waitForFunction(() => Number(document.querySelector('#attribution').dataset.runsFinished ?? 0) > 0);
    assert.equal(await page.$$eval('#attr-heads td', (tds) => tds.length), 2 * 3, 'a head-importance cell per block and head');
    await page.waitForSelector('#view-grid canvas[data-method="attattr"][data-rendered="heat"]');
    await screenshot(page, 'open-model-grid');

    // Kept in this browser and read from there: never requested from the server.
    assert.deepEqual(requests.filter((u) => u.includes('/models/local/')), []);
    assert.deepEqual(offOrigin, []);
    assert.ok((await cacheKeys(page)).some((u) => u.includes(`/models/local/${NAME}/${NAME}.weights.bin?sha256=`)));

    // The link names it, and a reload reopens it from this browser.
    await page.waitForFunction((n) => new URLSearchParams(location.search).get('model') === n, NAME);
    await page.reload();
    await ready(page, NAME);
    assert.match(await page.$eval('#model-select', (s) => s.selectedOptions[0].textContent), /in this browser$/);
    await choosePhoto(page, sample('catdog.png'));
    await page.waitForSelector('#view-grid canvas[data-rendered="heat"]');
    assert.deepEqual((await top5Labels(page)).sort(), [...LABELS].sort());

    // Removed: the site's model opens, and nothing of it is left in the cache.
    await page.click('#model-remove');
    await ready(page, siteModel);
    assert.equal(await page.$$eval('#model-select option', (options, n) => options.filter((o) => o.textContent.startsWith(n)).length, NAME), 0);
    assert.equal(await page.isHidden('#model-remove'), true);
    assert.deepEqual((await cacheKeys(page)).filter((u) => u.includes('/models/local/')), []);

    // A link to it, as from another browser: it says the model is not in this browser.
    await page.goto(`${site.url}?model=${NAME}`);
    await ready(page, siteModel);
    await page.waitForSelector('#link-notice:not([hidden])');
    assert.match(await page.textContent('#link-notice-text'),
      new RegExp(`The link names the model “${NAME}”, which is not on this site and not in this browser: .*kept only in the browser that opened it`));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// Playwright cannot drop a folder, but Chromium's DevTools protocol can: a drag whose files
// name a directory reaches the page as a FileSystemDirectoryEntry, as a folder dragged from
// the file manager does.
async function dropFolder(page, selector, folder) {
  const box = await page.locator(selector).boundingBox();
  const cdp = await page.context().newCDPSession(page);
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const data = { items: [], files: [folder], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop']) await cdp.send('Input.dispatchDragEvent', { type, ...at, data });
  await cdp.detach();
}

test('a folder dropped on the model box opens as a picked one does, and explains a photo', { skip }, async () => {
  const { page, context, requests, errors } = await openPage(browser, site.url);
  try {
    await page.waitForSelector('body[data-model-ready="true"]');
    await dropFolder(page, '#model-box', model);
    await ready(page, NAME);
    assert.match(await page.$eval('#model-select', (s) => s.selectedOptions[0].textContent), /in this browser$/);
    await choosePhoto(page, sample('catdog.png'));
    await page.waitForSelector('#view-single canvas[data-rendered="heat"]');
    assert.deepEqual((await top5Labels(page)).sort(), [...LABELS].sort());
    assert.deepEqual(requests.filter((u) => u.includes('/models/local/')), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// The hostile table's folders (tests/hostile/cases.js), each made from the export.
const FOLDERS = {
  photos: (to) => copyFileSync(sample('catdog.png'), path.join(to, 'catdog.png')),
  'no-weights': (to) => copyModel(to, (f) => !f.endsWith('.weights.bin')),
  'bad-metadata': (to) => {
    copyModel(to);
    writeFileSync(path.join(to, `${NAME}.json`), '{ "format": "vit-relevance-explainer", ');
  },
  mixed: (to) => {
    copyModel(to);
    copyFileSync(path.join(model, `${NAME}.target.onnx`), path.join(to, `${NAME}.photo.onnx`));
  },
  'dotdot-name': (to) => withIndex(to, (index) => { index.models[0].name = '..'; }),
  'url-file-name': (to) => withIndex(to, (index) => {
    const { split } = index.models[0];
    renameSync(path.join(to, split.weights), path.join(to, 'https:evil.example'));
    split.weights = 'https:evil.example';
  }),
  'many-models': (to) => withIndex(to, (index) => {
    index.models = Array.from({ length: 200 }, (_, i) => ({ ...index.models[0], name: `${NAME}-${i}` }));
  }),
  'huge-file': (to) => withIndex(to, (index) => truncateSync(path.join(to, index.models[0].split.weights), 2 * 2 ** 30)), // sparse
  'wrong-size': (to) => withIndex(to, (index) => {
    const entry = index.models[0];
    const file = path.join(to, entry.metadata);
    writeFileSync(file, JSON.stringify(doubledSize(JSON.parse(readFileSync(file, 'utf8')))));
    delete entry.sha256[entry.metadata];
  }),
  'corrupt-graph': (to) => withIndex(to, (index) => {
    const entry = index.models[0];
    const graph = Object.values(entry.split.families)[0];
    writeFileSync(path.join(to, graph), 'not a graph');
    delete entry.sha256[graph];
  }),
};
function copyModel(to, keep = () => true) {
  for (const f of readdirSync(model).filter(keep)) copyFileSync(path.join(model, f), path.join(to, f));
}
// The export with its index.json changed by `change`.
function withIndex(to, change) {
  copyModel(to);
  const index = JSON.parse(readFileSync(path.join(to, 'index.json'), 'utf8'));
  change(index);
  writeFileSync(path.join(to, 'index.json'), JSON.stringify(index));
}
// Metadata that says the graphs take photos twice the size they take, consistent in itself.
function doubledSize(m) {
  const a = m.architecture;
  const [h, w] = a.image_size.map((x) => 2 * x);
  const grid = [h / a.patch_size, w / a.patch_size];
  const tokens = grid[0] * grid[1] + a.special_tokens;
  const shape = (dims) => dims.map((d, i) => (d === a.tokens ? tokens : dims.length === 3 && i > 0 ? [h, w][i - 1] : d));
  return {
    ...m,
    architecture: { ...a, image_size: [h, w], grid, tokens },
    preprocess: { ...m.preprocess, resize: { ...m.preprocess.resize, size: 2 * m.preprocess.resize.size }, crop: { ...m.preprocess.crop, size: [h, w] } },
    inputs: { ...m.inputs, pixels: [1, 3, h, w] },
    outputs: Object.fromEntries(Object.entries(m.outputs).map(([k, dims]) => [k, shape(dims)])),
  };
}

// After each bad folder the page shows its one line (the last word: a graph that fails to
// open shows the load's own error first), the model kept under the same name still opens
// and explains, and nothing kept was deleted or added.
test('a bad folder gets one line; the model kept under its name, what is open and what is stored stay as they were', { skip }, async () => {
  const { page, context } = await openPage(browser, site.url);
  try {
    await page.waitForSelector('body[data-model-ready="true"]');
    await page.setInputFiles('#model-folder', model);
    await ready(page, NAME);
    const kept = (await cacheKeys(page)).sort();
    const cases = CASES.filter((c) => c.folder);
    assert.deepEqual(cases.map((c) => c.folder.kind).sort(), Object.keys(FOLDERS).sort());
    for (const c of cases) {
      const folder = path.join(dir, c.folder.kind);
      mkdirSync(folder);
      FOLDERS[c.folder.kind](folder);
      await page.$eval('#error-text', (e) => { e.textContent = ''; });
      await page.setInputFiles('#model-folder', folder);
      await page.waitForFunction(() => document.querySelector('#error-text').textContent.startsWith('Could not open your model: '));
      const text = await page.textContent('#error-text');
      if (c.message instanceof RegExp) assert.match(text, c.message, c.name);
      else assert.equal(text, c.message, c.name);
      await ready(page, NAME);
      assert.deepEqual((await cacheKeys(page)).sort(), kept, c.name);
      await page.click('#error-close');
      rmSync(folder, { recursive: true }); // the 2 GB file's blocks are never written, but go
    }
    assert.match(await page.$eval('#model-select', (s) => s.selectedOptions[0].textContent), /in this browser$/);
    await choosePhoto(page, sample('catdog.png'));
    await page.waitForSelector('#view-single canvas[data-rendered="heat"]');
    assert.deepEqual((await top5Labels(page)).sort(), [...LABELS].sort());
    // Removed: nothing it stored is left.
    await page.click('#model-remove');
    await page.waitForFunction((n) => document.body.dataset.model !== n && document.body.dataset.modelReady === 'true', NAME);
    assert.deepEqual((await cacheKeys(page)).filter((u) => u.includes('/models/local/')), []);
  } finally {
    await context.close();
  }
});
