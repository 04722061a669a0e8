// The page takes text (docs/page.md, "Text"), in headless Chromium on the built site, which
// carries the default text model: a visitor who never chooses it downloads none of its
// files; chosen, the photo area becomes a text box; a sentence typed key by key is explained
// as it is typed, and the map shown last is the final text's, no map of an older text ever
// shown after a newer one's (every change of the drawn text recorded in the page); class,
// method, contrast, the grid, the maps' JSON, the link (the text only through "Copy link
// with this text") and a long text at 390 px. Every wait is on a state the page exposes
// (body[data-model-ready], body[data-text-explained], #text-view's data-*).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pageFiles } from '../../web/lib/model-files.js';
import { skipReason, startSite, launch, openPage, screenshot, WAIT_MS } from './harness.js';
import { recordExplained, assertFollowedTyping } from './text-typing.js';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';

const skip = skipReason() ?? (existsSync(DEFAULT_TEXT_MODEL) ? false : 'the default text model is not built: run `npm run build`');
const NAME = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
const SENTENCE = 'the acting is superb, but the plot is a complete mess';
const LONG = `${'This review goes on and on about the film, its actors, its music and its photography, '.repeat(5)}`
  + 'and ends with https://example.org/reviews/an-extraordinarily-long-path-without-any-space-at-all-in-it';

let site;
let browser;
let s; // { page, requests, errors }

const shown = (page) => page.$eval('#text-view', (v) => ({ ...v.dataset, tiles: v.querySelectorAll('.text-tile').length,
  words: [...v.querySelectorAll('.text-tile:first-of-type .text')].map((t) => t.textContent).join(''),
  caption: v.querySelector('.text-caption')?.textContent ?? '', scales: [...v.querySelectorAll('.text-tile')].map((t) => t.dataset.scale) }));
const waitShown = (page, want) => page.waitForFunction((w) => {
  const d = document.querySelector('#text-view').dataset;
  return Object.entries(w).every(([k, v]) => d[k] === v);
}, want);

async function chooseTextModel(page) {
  const value = await page.$eval('#model-select', (sel, n) => [...sel.options].find((o) => o.textContent.startsWith(n))?.value, NAME);
  assert.ok(value !== undefined, 'the picker lists the text model');
  await page.selectOption('#model-select', value);
  await page.waitForSelector(`body[data-model="${NAME}"][data-model-ready="true"]`);
}

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  s = await openPage(browser, site.url);
  await s.page.waitForSelector('body[data-model-ready="true"]');
});
after(async () => {
  await browser?.close();
  await site?.close();
});

test('the text model is listed but none of it is downloaded until it is chosen', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  const label = await page.$eval('#model-select', (sel, n) => [...sel.options].find((o) => o.textContent.startsWith(n))?.textContent, NAME);
  assert.match(label, /· text · [\d.]+ MB$/);
  assert.deepEqual(s.requests.filter((u) => u.includes(NAME)), [], 'no file of the text model before it is chosen');
  assert.ok(await page.isVisible('#dropzone'));
  assert.ok(!(await page.isVisible('#text-input')));
});

test('typed key by key, the text is explained as it is typed; no older text is shown after a newer one', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  await chooseTextModel(page);
  assert.ok(await page.isVisible('#text-input'));
  assert.ok(!(await page.isVisible('#dropzone')), 'the text box takes the photo area');
  assert.ok(!s.requests.some((u) => u.includes(`${NAME}.forward.onnx`) || u.includes(`${NAME}.attr`)), 'only the explainer graph, its metadata and vocabulary');
  await recordExplained(page);
  await page.focus('#text-input');
  await page.keyboard.type(SENTENCE, { delay: 60 });
  await page.waitForSelector(`body[data-text-explained="${SENTENCE}"]`);
  await assertFollowedTyping(page, SENTENCE);
  const v = await shown(page);
  assert.equal(v.text, SENTENCE);
  assert.equal(v.words, SENTENCE, 'the text itself, coloured');
  assert.equal(v.tiles, 1);
  const top = await page.$$eval('#top5 button', (bs) => bs.map((b) => Number(b.dataset.prob)));
  assert.equal(top.length, 2, 'both classes with their probability');
  assert.ok(Math.abs(top[0] + top[1] - 1) < 1e-3);
  // A word's score on focus, in the tile's readout line.
  await page.focus('#text-view .t[tabindex="0"]');
  assert.match(await page.textContent('#text-view .score'), /^the: -?\d/);
  await screenshot(page, 'page-text-typed');
});

test('another class, another method (signed), a contrast, words', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  const other = await page.$eval('#top5 button[aria-pressed="false"]', (b) => b.dataset.classId);
  await page.click(`#top5 button[data-class-id="${other}"]`);
  await waitShown(page, { text: SENTENCE, class: other, method: 'transformer_attribution' });
  await page.selectOption('#method', 'attnlrp');
  await waitShown(page, { class: other, method: 'attnlrp' });
  assert.deepEqual((await shown(page)).scales, ['signed']);
  await page.check('#contrastive');
  await page.waitForFunction(() => document.querySelector('#text-view').dataset.contrast !== '');
  const c = await shown(page);
  assert.match(c.caption, /rather than/);
  assert.deepEqual(c.scales, ['signed']);
  await page.uncheck('#contrastive');
  await waitShown(page, { contrast: '' });
  // Typing on keeps the chosen class.
  await page.focus('#text-input');
  await page.keyboard.press('End');
  await page.keyboard.type('!', { delay: 30 });
  await waitShown(page, { text: `${SENTENCE}!`, class: other });
  await page.check('input[name="unit"][value="word"]');
  await waitShown(page, { unit: 'word' });
  assert.match(await page.getAttribute('#text-view .t', 'title'), /^the: /);
});

test('the grid shows every method as one coloured copy of the text; JSON of the maps', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  await page.click('#tab-grid');
  await waitShown(page, { view: 'grid' });
  const methods = await page.$$eval('#method option', (os) => os.map((o) => o.value));
  const v = await shown(page);
  assert.equal(v.tiles, methods.length);
  assert.deepEqual(v.method.split(',').sort(), [...methods].sort());
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#text-json')]);
  const json = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(json.text, `${SENTENCE}!`);
  assert.deepEqual(Object.keys(json.maps).sort(), [...methods].sort());
  for (const m of methods) assert.equal(json.maps[m].tokens.length, json.tokens.length);
  await screenshot(page, 'page-text-grid');
  await page.click('#tab-single');
  await waitShown(page, { view: 'single' });
});

test('the address bar keeps model, class, method and view, never the text unless asked', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  await page.waitForFunction((n) => new URLSearchParams(location.search).get('model') === n && new URLSearchParams(location.search).get('method') === 'attnlrp', NAME);
  const q = new URLSearchParams(new URL(page.url()).search);
  assert.equal(q.get('text'), null);
  assert.ok(!page.url().includes('superb'));
  await page.click('#text-link');
  const link = await page.inputValue('#text-link-out');
  assert.equal(new URL(link).searchParams.get('text'), `${SENTENCE}!`);
  assert.ok(!page.url().includes('superb'), 'the address bar still has no text');
  // The link opens the text explained.
  const other = await openPage(browser, link, { width: 390, height: 844 });
  try {
    await other.page.waitForSelector(`body[data-text-explained="${SENTENCE}!"]`);
    assert.equal(await other.page.inputValue('#text-input'), `${SENTENCE}!`);
    assert.equal((await shown(other.page)).method, 'attnlrp');
    assert.ok(!other.page.url().includes('superb'), 'the opened link drops the text from the address bar');
  } finally {
    await other.context.close();
  }
});

test('a long text wraps and stays readable at 390 px', { skip, timeout: WAIT_MS }, async () => {
  const phone = await openPage(browser, `${site.url}?model=${NAME}`, { width: 390, height: 844 });
  try {
    const page = phone.page;
    await page.waitForSelector('body[data-model-ready="true"]');
    await page.fill('#text-input', LONG);
    await page.waitForFunction((t) => document.body.dataset.textExplained === t, LONG);
    const box = await page.evaluate(() => {
      const r = document.querySelector('#text-view .text').getBoundingClientRect();
      const size = parseFloat(getComputedStyle(document.querySelector('#text-view .text')).fontSize);
      return { right: r.right, left: r.left, height: r.height, size, scroll: document.documentElement.scrollWidth };
    });
    assert.ok(box.scroll <= 390, `the page is ${box.scroll} px wide`);
    assert.ok(box.left >= 0 && box.right <= 390, `the text lies within the screen (${box.left}–${box.right})`);
    assert.ok(box.size >= 14, `font ${box.size} px`);
    assert.ok(box.height > 200, 'it wraps onto many lines');
    await screenshot(page, 'page-text-390');
  } finally {
    await phone.context.close();
  }
});

test("a text model's folder opens through “Open your model…” and is explained as you type", { skip, timeout: WAIT_MS }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'page-text-folder-'));
  const models = path.dirname(DEFAULT_TEXT_MODEL);
  const built = JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.name === NAME);
  const entry = { ...built, name: 'my-reviews' }; // the site has a model of the built name
  for (const f of pageFiles(entry)) copyFileSync(path.join(models, f), path.join(dir, f)); // a picked folder's links are not followed
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ models: [entry] }));
  const other = await openPage(browser, site.url);
  try {
    const page = other.page;
    await page.waitForSelector('body[data-model-ready="true"]');
    await page.setInputFiles('#model-folder', dir);
    await page.waitForSelector('body[data-model="my-reviews"][data-model-ready="true"][data-kind="text"]');
    await page.fill('#text-input', 'A gripping, beautifully shot film.');
    await page.waitForSelector('body[data-text-explained="A gripping, beautifully shot film."]');
    await page.waitForFunction(() => document.querySelector('#model-select option:checked')?.textContent.startsWith('my-reviews'));
    assert.match(await page.$eval('#model-select option:checked', (o) => o.textContent), /^my-reviews · 2 classes · text · [\d.]+ MB · in this browser$/);
  } finally {
    await other.context.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
