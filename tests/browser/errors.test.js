// Bad input and bad models: each shows a message in the page, and the page keeps working.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { CASES } from '../hostile/cases.js';
import { hugePng } from '../hostile/huge-png.js';
import {
  skipReason, startSite, launch, openPage, screenshot, sample, choosePhoto, firstModel, paths,
} from './harness.js';

const skip = skipReason() ?? false; // node:test skips on null too
let browser;

before(async () => { if (!skip) browser = await launch(); });
after(async () => { await browser?.close(); });

const photoRendered = (page, name) => page.waitForFunction((n) => document.body.dataset.photo === n
  && document.querySelector('#main-canvas').dataset.rendered === 'heat', name);
const errorText = async (page) => {
  await page.waitForSelector('#error:not([hidden])');
  return page.textContent('#error-text');
};

// One page on the normal site for the photo errors.
test('broken, tiny and huge photos', { skip }, async (t) => {
  const site = await startSite();
  const { page } = await openPage(browser, site.url);
  t.after(() => site.close());
  await page.waitForSelector('body[data-model-ready="true"]');

  await t.test('a corrupt image shows an error', async () => {
    const png = readFileSync(sample('catdog.png'));
    await page.setInputFiles('#file-input', { name: 'broken.png', mimeType: 'image/png', buffer: png.subarray(0, 200) });
    assert.match(await errorText(page), /could not be decoded/);
  });

  await t.test('a 1×1 image shows an error', async () => {
    const one = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#808080' } }).png().toBuffer();
    await page.setInputFiles('#file-input', { name: 'one.png', mimeType: 'image/png', buffer: one });
    await page.waitForFunction(() => /1×1/.test(document.querySelector('#error-text').textContent));
    await screenshot(page, 'error-1x1');
  });

  await t.test('a 12000×12000 photo is scaled down and explained', async () => {
    const huge = await sharp({ create: { width: 12000, height: 12000, channels: 3, background: '#6a8caf' } })
      .composite([{ input: readFileSync(sample('catdog.png')), left: 5000, top: 5000 }]).png().toBuffer();
    await page.setInputFiles('#file-input', { name: 'huge.png', mimeType: 'image/png', buffer: huge });
    await photoRendered(page, 'huge.png');
    assert.match(await page.textContent('#main-caption'), /scaled from 12000×12000/);
    assert.notEqual(await page.evaluate(() => document.body.dataset.photoSize), '12000x12000', 'the photo shown is the scaled one');
    await screenshot(page, 'huge-12000');
  });

  await t.test('after all that, a normal photo still works', async () => {
    await choosePhoto(page, sample('el1.png'));
    await photoRendered(page, 'el1.png');
    assert.equal(await page.isHidden('#error'), true);
  });
});

// The peak resident memory (VmHWM, bytes) of each process under this one: the browser's.
function peaks() {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const parent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
      children.set(parent, [...(children.get(parent) ?? []), pid]);
    } catch { /* gone meanwhile */ }
  }
  const out = new Map();
  const visit = (pid) => (children.get(pid) ?? []).forEach((child) => {
    try {
      out.set(child, 1024 * Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child}/status`, 'utf8'))?.[1] ?? 0));
    } catch { /* gone meanwhile */ }
    visit(child);
  });
  visit(String(process.pid));
  return out;
}

test('a 20000×20000 PNG (1.2 MB) is refused from its header by the page and the element, before any decode', { skip }, async () => {
  const png = await hugePng(20000, 20000);
  const site = await startSite({ overrides: { '/huge.png': { body: png, type: 'image/png' } } });
  const { page, context } = await openPage(browser, site.url);
  try {
    const refusal = '“huge.png” is 20000×20000 = 400,000,000 pixels, more than the 150,000,000 a browser tab decodes here: scale it down first.';
    await page.waitForSelector('body[data-model-ready="true"]');
    const before = peaks();
    await page.setInputFiles('#file-input', { name: 'huge.png', mimeType: 'image/png', buffer: png });
    assert.equal(await errorText(page), refusal);
    await page.goto(`${site.url}embed.html?src=huge.png`);
    const caption = await page.waitForFunction(() => document.querySelector('vit-relevance')?.shadowRoot.querySelector('figcaption.error')?.textContent);
    assert.equal(await caption.jsonValue(), refusal);
    // Decoded whole, the photo would be 1.6 GB in one of the browser's processes.
    const grown = [...peaks()].map(([pid, peak]) => peak - (before.get(pid) ?? 0));
    assert.ok(Math.max(...grown) < 2 ** 30, `a browser process grew by ${(Math.max(...grown) / 2 ** 30).toFixed(2)} GB`);
  } finally {
    await context.close();
    await site.close();
  }
});

// Serves the real model next to a broken one; the broken one is listed first.
test('a model that fails to load, or does not match its metadata, is reported', { skip }, async (t) => {
  const real = firstModel();
  const metadata = JSON.parse(readFileSync(path.join(paths.models, real.metadata), 'utf8'));
  const wrong = { ...metadata, architecture: { ...metadata.architecture, grid: [7, 7], tokens: 50 } };
  const index = (entry) => JSON.stringify({ models: [entry, real] });
  // How each kind of broken model of the hostile table (tests/hostile/cases.js) is served:
  // [index entry, overridden files]; the split kinds need the split graphs.
  const BROKEN = {
    'not-onnx': () => [{ name: 'broken', onnx: 'broken.onnx', metadata: real.metadata, bytes: 11 },
      { '/models/broken.onnx': { body: 'not a model' } }],
    mismatch: () => [{ name: 'mismatch', onnx: real.onnx, metadata: 'mismatch.json', bytes: real.bytes },
      { '/models/mismatch.json': { body: JSON.stringify(wrong), type: 'application/json' } }],
    missing: () => [{ name: 'gone', onnx: 'gone.onnx', metadata: real.metadata, bytes: 5 }, {}],
    'split-misfit': () => real.split && [{ ...real, name: 'misfit', split: { ...real.split, target: real.split.photo } }, {}],
    'bad-weights': () => real.split && [{ ...real, name: 'badweights', split: { ...real.split, weights: 'bad.bin' } },
      { '/models/bad.bin': { body: 'not weights' } }],
    altered: () => real.sha256 && [{ ...real, name: 'altered', sha256: { ...real.sha256, [real.split?.forward ?? real.onnx]: '0'.repeat(64) } }, {}],
    'altered-metadata': () => real.sha256 && [{ ...real, name: 'altered-metadata', sha256: { ...real.sha256, [real.metadata]: '0'.repeat(64) } }, {}],
  };
  const cases = [];
  for (const c of CASES.filter((x) => x.model)) {
    const built = BROKEN[c.model.kind]();
    if (built) cases.push([c.name, ...built, c.message]);
  }
  for (const [what, entry, overrides, message] of cases) {
    await t.test(what, async () => {
      const site = await startSite({
        overrides: { '/models/index.json': { body: index(entry), type: 'application/json' }, ...overrides },
      });
      try {
        const { page } = await openPage(browser, site.url);
        assert.match(await errorText(page), message);
        await screenshot(page, `error-model-${entry.name}`);
        // The page keeps working: pick the real model and explain a photo.
        await page.selectOption('#model-select', '1');
        await page.waitForSelector('body[data-model-ready="true"]');
        await choosePhoto(page, sample('catdog.png'));
        await photoRendered(page, 'catdog.png');
      } finally {
        await site.close();
      }
    });
  }
});
