// A site built with an extra exported model (VITREL_MODELS, issue 27): the page's model
// select offers it after the built-in one, and ?model=<its name> opens it and explains a
// photo with it. The model is a small random ViT exported with the CLI, 10 classes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { buildSite } from '../../scripts/build/site.js';
import { exportRandomModel } from '../node/random-model.js';
import { tempDir } from '../node/maps-support.js';
import { skipReason, startSite, launch, openPage, paths, firstModel, waitForHeat, screenshot } from './harness.js';

const skip = skipReason() ?? false;
const NAME = 'random_extra_vit';
let dir;
let site;
let browser;

before(async () => {
  if (skip) return;
  dir = tempDir('extra-models-page-');
  const { folder } = exportRandomModel(dir, { name: NAME, width: 64, heads: 2, depth: 2, classes: 10 });
  const root = path.join(dir, 'site');
  await buildSite({ ...paths, site: root }, { models: folder });
  site = await startSite({ root, build: false });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The models of build/models/index.json, which the site carries.
const builtInCount = () => JSON.parse(readFileSync(path.join(paths.models, 'index.json'), 'utf8')).models.length;

test('?model=<an extra model> opens it from the model select and maps a photo with it', { skip }, async () => {
  const { page, errors } = await openPage(browser, `${site.url}?model=${NAME}&photo=catdog.png`);
  await page.waitForSelector('body[data-model-ready="true"]');
  const options = await page.$$eval('#model-select option', (os) => os.map((o) => o.textContent));
  // The built-in models (DeiT-tiny and the text model), then the extra one.
  assert.equal(options.length, builtInCount() + 1);
  assert.match(options[0], new RegExp(`^${firstModel().name}`));
  assert.match(options.at(-1), new RegExp(`^${NAME}`));
  assert.match(await page.$eval('#model-select', (s) => s.selectedOptions[0].textContent), new RegExp(`^${NAME}`));
  assert.equal(await page.getAttribute('body', 'data-classes'), '10');
  // Its own prediction: the top-5 of its 10 classes, named "class N" (no labels given).
  await page.waitForSelector('#top5 button');
  const top = await page.$$eval('#top5 button', (bs) => bs.map((b) => Number(b.dataset.classId)));
  assert.equal(top.length, 5);
  assert.ok(top.every((id) => id >= 0 && id < 10), `classes ${top}`);
  await waitForHeat(page, `c${top[0]}`);
  await screenshot(page, 'extra-model');
  assert.deepEqual(errors, []);
});
