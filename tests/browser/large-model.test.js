// A large model keeps one ONNX session open at a time (runtime/explainer.js, oneSession;
// web/worker/sessions.js): DeiT-tiny's own files, listed in an index.json that gives them
// LARGE_WEIGHTS_BYTES and more, so that the page takes that path. It reads no photo or
// class graph, is ready with its default method's graph's session (which predicts too), and
// explains a photo, another class (that graph again) and every method in the grid (the
// explainer graph's session in its place), with the maps a normal load draws.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LARGE_WEIGHTS_BYTES } from '../../runtime/session-options.js';
import { skipReason, startSite, launch, openPage, sample, waitForHeat, choosePhoto, copiedMap, paths } from './harness.js';
import { pearson } from './reference.js';

const skip = skipReason() ?? false;
const BULL_MASTIFF = 243;
const TIGER_CAT = 282;
let sites = [];
let browser;

before(async () => {
  if (skip) return;
  const index = JSON.parse(readFileSync(path.join(paths.site, 'models', 'index.json'), 'utf8'));
  index.models[0].split.bytes = LARGE_WEIGHTS_BYTES + 1;
  const large = await startSite({ overrides: { '/models/index.json': { body: JSON.stringify(index), type: 'application/json' } } });
  sites = [large, await startSite({ build: false })];
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await Promise.all(sites.map((s) => s.close()));
});

// The single view's map of `cls` after choosing catdog (and clicking the class unless it is top-1).
async function mapOf(page, cls) {
  if (!(await page.$(`canvas[data-rendered="heat"][data-target="c${cls}"]`))) {
    await page.click(`#top5 button[data-class-id="${cls}"]`);
  }
  await waitForHeat(page, `c${cls}`);
  return (await copiedMap(page)).data;
}

test('a large model: one session at a time, no split graph read, the maps of a normal load', { skip, timeout: 600_000 }, async () => {
  const maps = [];
  for (const [i, site] of sites.entries()) {
    const { page, context, requests, errors } = await openPage(browser, site.url);
    try {
      await page.waitForSelector('body[data-model-ready="true"]');
      await choosePhoto(page, sample('catdog.png'));
      const dog = await mapOf(page, BULL_MASTIFF);
      const cat = await mapOf(page, TIGER_CAT);
      await page.click('#tab-grid');
      const methods = (await page.$$eval('#method option', (os) => os.map((o) => o.value))).filter((m) => m !== 'attattr');
      await page.waitForFunction((n) => document.querySelectorAll('#grid canvas[data-rendered="heat"]').length === n, methods.length);
      maps.push({ dog, cat });
      const { split } = JSON.parse(readFileSync(path.join(paths.site, 'models', 'index.json'), 'utf8')).models[0];
      const read = (file) => requests.some((u) => new URL(u).pathname.endsWith(`/models/${file}`));
      if (i === 0) {
        assert.ok(!read(split.photo) && !read(split.target), 'a large model reads no split graph');
        assert.deepEqual(errors, []);
      } else {
        assert.ok(read(split.photo) && read(split.target), 'a normal load reads them');
      }
    } finally {
      await context.close();
    }
  }
  // The same maps, from other graphs (the family graph for the class switch too, not the
  // class graph), so other float32 roundings: METHODS.md's agreement of two correct
  // pipelines for transformer_attribution, Pearson >= 0.99; and each class's map is its own.
  const [large, normal] = maps;
  for (const key of ['dog', 'cat']) assert.ok(pearson(large[key], normal[key]) >= 0.99, key);
  assert.ok(pearson(large.cat, normal.cat) > pearson(large.cat, normal.dog), 'the cat map, not the dog one');
});
