// The class picker by keyboard (focus kept after a top-5 pick, Escape restores the field,
// a pick's name is replaced by the next search, no-match feedback) and on a phone (the
// picker directly above the map, a tap on the map shows the patch readout).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, screenshot, waitForHeat, waitForStill } from './harness.js';

const skip = skipReason() ?? false; // node:test skips on null too
const TIGER_CAT = 282;
const NEAR = 120; // px at most between the picker and the map on a phone (the view tabs lie between)
let site;
let browser;
let desk; // { page, errors, context }

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  desk = await openPage(browser, `${site.url}?photo=catdog.png`);
  await desk.page.waitForSelector('body[data-model-ready="true"]');
  await waitForHeat(desk.page, 'c243');
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  return { id: el.id, tag: el.tagName, classId: el.dataset?.classId ?? null, pressed: el.getAttribute('aria-pressed') };
});

test('choosing a top-5 class with the keyboard keeps the focus on it', { skip }, async () => {
  const page = desk.page;
  const second = await page.$$eval('#top5 button', (bs) => bs[1].dataset.classId);
  await page.focus(`#top5 button[data-class-id="${second}"]`);
  await page.keyboard.press('Enter');
  await waitForHeat(page, `c${second}`);
  assert.deepEqual(await focused(page), { id: '', tag: 'BUTTON', classId: second, pressed: 'true' });
  // and the keyboard goes on from there: Tab reaches the next top-5 button
  await page.keyboard.press('Tab');
  assert.equal((await focused(page)).classId, await page.$$eval('#top5 button', (bs) => bs[2].dataset.classId));
  await page.focus('#top5 button[data-class-id="243"]');
  await page.keyboard.press(' ');
  await waitForHeat(page, 'c243');
  assert.equal((await focused(page)).classId, '243');
});

test('a picked name is replaced by the next search; Escape restores the field', { skip }, async () => {
  const page = desk.page;
  await page.focus('#class-a');
  await page.keyboard.type('tiger ca');
  await page.waitForSelector(`#class-a-list-${TIGER_CAT}[aria-selected="true"]`);
  await page.keyboard.press('Enter');
  await waitForHeat(page, `c${TIGER_CAT}`);
  assert.equal(await page.inputValue('#class-a'), `tiger cat (${TIGER_CAT})`);
  assert.equal((await focused(page)).id, 'class-a');
  await page.keyboard.type('zebr');
  assert.equal(await page.inputValue('#class-a'), 'zebr', 'typing after a pick starts a new search');
  await page.waitForSelector('#class-a-list:not([hidden])');
  await page.keyboard.press('Escape');
  assert.equal(await page.inputValue('#class-a'), `tiger cat (${TIGER_CAT})`);
  assert.equal(await page.isHidden('#class-a-list'), true);
  assert.equal(await page.evaluate(() => document.body.dataset.class), String(TIGER_CAT), 'Escape changes no class');
  await page.keyboard.type('243');
  assert.equal(await page.inputValue('#class-a'), '243', 'after Escape typing replaces the name too');
  await page.keyboard.press('Escape');
});

test('a search that matches nothing says so', { skip }, async () => {
  const page = desk.page;
  await page.fill('#class-a', 'qxqxqxqx');
  await page.waitForSelector('#class-a-list-empty:not([hidden])');
  assert.match(await page.textContent('#class-a-list-empty'), /No class matches “qxqxqxqx”/);
  assert.equal(await page.getAttribute('#class-a-list-empty', 'role'), 'status');
  assert.equal(await page.isHidden('#class-a-list'), true);
  await page.fill('#class-a', 'tabb');
  await page.waitForSelector('#class-a-list:not([hidden])');
  assert.equal(await page.isHidden('#class-a-list-empty'), true, 'the message goes once something matches');
  await page.fill('#class-a', '1000');
  assert.match(await page.textContent('#class-a-list-empty'), /No class matches “1000”.*0 to 999/);
  await page.keyboard.press('Escape');
  assert.deepEqual(desk.errors, []);
});

test('on a phone (390×844) the class picker sits directly above the map, and a tap reads a patch', { skip }, async () => {
  const { page, errors, context } = await openPage(browser, `${site.url}?photo=catdog.png`, { width: 390, height: 844 },
    { device: { hasTouch: true, isMobile: true } });
  await page.waitForSelector('body[data-model-ready="true"]');
  await waitForHeat(page, 'c243');
  // The page reveals the picker with a smooth scroll that may start frames later: let it land.
  await page.waitForFunction(() => {
    const top = document.querySelector('#picker').getBoundingClientRect().top;
    return top >= 0 && top < window.innerHeight * 0.6;
  });
  await waitForStill(page);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= 390, 'no horizontal scrolling');
  const box = (sel) => page.$eval(sel, (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; });
  const picker = await box('#picker');
  const map = await box('#main-canvas');
  assert.ok(picker.bottom <= map.top, `the picker (bottom ${picker.bottom}) is above the map (top ${map.top})`);
  assert.ok(map.top - picker.bottom <= NEAR, `and within ${NEAR} px of it: ${map.top - picker.bottom} px`);
  // The one column follows the work: the photo first, the attribution panel last.
  const tops = await page.$$eval('#input-h, #picker, #main-canvas, #attribution',
    (els) => els.map((el) => [el.id, el.getBoundingClientRect().top]).sort((a, b) => a[1] - b[1]).map(([id]) => id));
  assert.deepEqual(tops, ['input-h', 'picker', 'main-canvas', 'attribution']);
  // Both are on screen together once the picker is scrolled to the top.
  // (Scrolled again until it holds: the panels above may still settle their height, and
  // a layout shift moves the picker without changing scrollY.)
  await page.waitForFunction(() => {
    document.querySelector('#picker').scrollIntoView({ block: 'start' });
    const top5 = document.querySelector('#top5').getBoundingClientRect();
    return top5.top >= 0 && document.querySelector('#main-canvas').getBoundingClientRect().top < window.innerHeight;
  });
  await screenshot(page, 'phone-390-picker');
  // A tap on the map: the readout the desktop shows on hover.
  await page.tap('#main-canvas', { position: { x: (map.right - map.left) * 0.3, y: (map.bottom - map.top) * 0.5 } });
  assert.match(await page.textContent('#hover-readout'), /patch \(row \d+, col \d+\): relevance/);
  // Tapping a top-5 class switches the map.
  const second = await page.$$eval('#top5 button', (bs) => bs[1].dataset.classId);
  await page.tap(`#top5 button[data-class-id="${second}"]`);
  await waitForHeat(page, `c${second}`);
  assert.deepEqual(errors, []);
  await context.close();
});
