// The page's Attribution panel (web/page/lib/attribution-panel.js, web/attribution-job.js)
// in headless Chromium on the real DeiT-tiny and catdog: the head-importance grid and the
// attribution tree render, τ re-thresholds without a rerun, the attattr map joins the
// single and grid views, a second class reuses the photo's hidden states, the default run
// is every block, Cancel stops within one block, and the page answers during a run.
// Small m and few blocks keep it short; the full run's memory is `npm run bench -- attribute`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, openReadyPage, screenshot, sample, waitForHeat, choosePhoto, firstModel } from './harness.js';

const skip = skipReason() ?? (firstModel().attribution ? false : 'the model has no attribution graphs (npm run build)');
const BULL_MASTIFF = 243;
const TIGER_CAT = 282;
let session;

before(async () => {
  if (skip) return;
  session = await openReadyPage();
  await choosePhoto(session.page, sample('catdog.png'));
  await waitForHeat(session.page, `c${BULL_MASTIFF}`);
});
after(async () => {
  await session?.close();
});

const page = () => session.page;
const workerStats = () => page().evaluate(() => window.__vitrel.workerStats());
// The panel's runs started, finished and cancelled (its data-runs-* attributes).
const panelStats = () => page().$eval('#attribution', (p) => ({
  started: Number(p.dataset.runsStarted ?? 0), finished: Number(p.dataset.runsFinished ?? 0), cancelled: Number(p.dataset.runsCancelled ?? 0),
}));

// Sets the panel's fields, presses Attribute and waits until the run ends.
async function attribute(blocks, steps) {
  const finished = (await panelStats()).finished;
  await page().fill('#attr-blocks', blocks);
  await page().fill('#attr-steps', String(steps));
  await page().dispatchEvent('#attr-steps', 'change');
  await page().click('#attr-run');
  await page().waitForFunction((n) => Number(document.querySelector('#attribution').dataset.runsFinished ?? 0) > n, finished);
}

test('the panel starts with every block and m = 20, says what to do, shows no empty figure', { skip }, async () => {
  assert.match(await page().textContent('#attr-status'), /^Press Attribute to see which heads and attention links mattered for bull mastiff \(12 blocks, m = 20 steps each\)\.$/);
  assert.equal(await page().textContent('#attr-blocks-help'), 'all, or indices 0..11 such as 0,6,11');
  assert.equal(await page().isHidden('.attr-heads-fig'), true);
  assert.equal(await page().isHidden('.attr-tree-fig'), true);
  assert.equal(await page().inputValue('#attr-blocks'), 'all');
  assert.equal(await page().inputValue('#attr-steps'), '20');
  assert.equal(await page().isEnabled('#attr-run'), true);
});

test('a bad block list is refused by name before anything runs', { skip }, async () => {
  const before = await workerStats();
  await page().fill('#attr-blocks', '3,12');
  await page().click('#attr-run');
  assert.match(await page().textContent('#attr-status'), /Blocks: "12" is not a block index 0\.\.11/);
  assert.deepEqual((await workerStats()).attribution, before.attribution);
});

test('two blocks: their head-importance grid, no tree yet', { skip }, async () => {
  await attribute('10,11', 2);
  const cells = await page().$$eval('#attr-heads td', (tds) => tds.map((td) => ({ block: td.dataset.block, head: td.dataset.head, value: Number(td.dataset.value), bg: td.style.background })));
  assert.equal(cells.length, 2 * 3);
  assert.deepEqual(cells.map((c) => `${c.block}.${c.head}`), ['10.0', '10.1', '10.2', '11.0', '11.1', '11.2']);
  assert.ok(cells.every((c) => Number.isFinite(c.value) && c.bg), JSON.stringify(cells));
  assert.ok(new Set(cells.map((c) => c.value)).size > 1, 'heads differ in importance');
  // The caption names the values the colour scale's ends stand for: the grid's min and max.
  const values = cells.map((c) => c.value);
  const ends = (await page().textContent('#attr-heads-readout')).match(/coloured from ([-\d.e+]+) \(low\) to ([-\d.e+]+) \(high\)/);
  assert.ok(ends, await page().textContent('#attr-heads-readout'));
  assert.deepEqual([Number(ends[1]), Number(ends[2])], [Math.min(...values), Math.max(...values)].map((v) => Number(v.toPrecision(3))));
  // hover and keyboard focus both name block, head and value
  await page().hover('#attr-heads td[data-block="11"][data-head="2"]');
  assert.match(await page().textContent('#attr-heads-readout'), /^block 11, head 2: importance [-\d.e]+$/);
  await page().focus('#attr-heads td[data-block="10"][data-head="0"]');
  assert.match(await page().textContent('#attr-heads-readout'), /^block 10, head 0: importance /);
  assert.equal(await page().$eval('#attr-tree-canvas', (c) => c.dataset.edges), '');
  assert.equal(await page().isHidden('.attr-tree-fig'), true, 'no empty tree canvas before every block is in');
  assert.match(await page().textContent('#attr-status'), /2 of 12 blocks attributed \(m = 2\)\. The attribution tree and the attattr map need every block: set Blocks to "all"/);
});

test('every block: the tree over the photo, τ without a rerun, attattr in the views; a second class reuses the states', { skip }, async () => {
  const before = await workerStats();
  await attribute('all', 2);
  const after = await workerStats();
  assert.equal(after.attribution.blocks - before.attribution.blocks, 10, 'blocks 10 and 11 of this class and m are reused');
  assert.equal(after.attribution.states, before.attribution.states, "the photo's hidden states are computed once");
  assert.equal(await page().$$eval('#attr-heads tr', (r) => r.length), 1 + 12);

  const edges = () => page().$eval('#attr-tree-canvas', (c) => Number(c.dataset.edges));
  const lines = () => page().$$eval('.attr-tree-svg line', (l) => l.length);
  const atTau = async (v) => {
    await page().$eval('#attr-tau', (el, x) => { el.value = String(x); el.dispatchEvent(new Event('input')); }, v);
    return { edges: await edges(), lines: await lines() };
  };
  const low = await atTau(0.05);
  const high = await atTau(0.9);
  assert.ok(low.edges > 0 && low.lines > 0, JSON.stringify(low));
  assert.ok(low.edges > high.edges, `τ 0.05: ${low.edges} edges, τ 0.9: ${high.edges}`);
  await atTau(0.4);
  assert.ok(await lines() > 0);
  await page().uncheck('#attr-tree-show');
  assert.equal(await lines(), 0, 'the toggle hides the tree');
  await page().check('#attr-tree-show');
  assert.equal((await panelStats()).started, 2, 'τ and the toggle never rerun the attribution');
  assert.match(await page().textContent('#attr-status'), /bull mastiff: all 12 blocks attributed \(m = 2\)\. Hover a cell/);
  await screenshot(page(), 'attribution-panel');

  // attattr: in the method selector, drawn in the single view and the grid
  await page().selectOption('#method', 'attattr');
  await page().waitForSelector('#view-single canvas[data-method="attattr"][data-rendered="heat"]');
  await page().click('#tab-grid');
  await page().waitForSelector(`#view-grid canvas[data-method="attattr"][data-rendered="heat"][data-target="c${BULL_MASTIFF}"]`);
  await page().click('#tab-single');
  await page().selectOption('#method', 'transformer_attribution');

  // a second class: only the block graphs run
  await page().click(`#top5 button[data-class-id="${TIGER_CAT}"]`);
  const second = await workerStats();
  await attribute('11', 2);
  const third = await workerStats();
  assert.equal(third.attribution.blocks - second.attribution.blocks, 1);
  assert.equal(third.attribution.states, second.attribution.states);
  // attattr chosen before its blocks are in: the panel computes the missing ones on demand
  await page().selectOption('#method', 'attattr');
  await page().waitForSelector(`#view-single canvas[data-method="attattr"][data-rendered="heat"][data-target="c${TIGER_CAT}"]`);
  assert.equal((await workerStats()).attribution.blocks - third.attribution.blocks, 11, 'block 11 is reused');
  await page().selectOption('#method', 'transformer_attribution');
  await page().click(`#top5 button[data-class-id="${BULL_MASTIFF}"]`);
});

test('the default run (every block, m = 20): the page answers during it and Cancel stops within one block', { skip, timeout: 600_000 }, async () => {
  await page().fill('#attr-blocks', 'all');
  await page().fill('#attr-steps', '20');
  await page().dispatchEvent('#attr-steps', 'change');
  const before = await workerStats();
  await page().click('#attr-run');
  assert.equal(await page().isVisible('#attr-cancel'), true);
  await page().waitForFunction(() => Number(document.querySelector('#attr-progress').value) >= 1);
  assert.equal(await page().$eval('#attr-progress', (p) => p.max), 12, 'the default is every block');

  // During the run: the class search answers, and a class switch is served between blocks.
  await page().fill('#class-a', 'tiger ca');
  await page().waitForSelector('#class-a-list [role="option"]');
  await page().keyboard.press('Escape');
  await page().click(`#top5 button[data-class-id="${TIGER_CAT}"]`);
  await waitForHeat(page(), `c${TIGER_CAT}`);
  const during = await page().$eval('#attr-progress', (p) => ({ value: p.value, hidden: p.hidden }));
  assert.ok(!during.hidden && during.value < 12, `the class switch waited for the whole run (${during.value}/12 blocks)`);

  // Cancel: the block in flight may finish, no other starts.
  const seen = await page().$eval('#attr-progress', (p) => p.value);
  await page().click('#attr-cancel');
  await page().waitForFunction(() => /Cancelled after/.test(document.querySelector('#attr-status').textContent));
  const stopped = (await workerStats()).attribution.blocks; // queued behind the block in flight
  assert.ok(stopped - before.attribution.blocks <= seen + 1, `ran ${stopped - before.attribution.blocks} blocks, ${seen} seen at the cancel`);
  assert.ok(stopped - before.attribution.blocks < 12, 'the run stopped early');
  assert.equal(await page().isVisible('#attr-cancel'), false);

  // The page and the Worker are usable after it; the Worker serves this run after the
  // cancelled one's next turn, so a block that ran after the cancel would show here.
  await page().click(`#top5 button[data-class-id="${BULL_MASTIFF}"]`);
  await waitForHeat(page(), `c${BULL_MASTIFF}`);
  await attribute('11', 1);
  assert.match(await page().textContent('#attr-status'), /attributed \(m = 1\)/);
  assert.equal((await workerStats()).attribution.blocks, stopped + 1, 'no block ran after the cancel took effect');
  assert.deepEqual(session.errors, []);
});
