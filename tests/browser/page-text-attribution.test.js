// The page's Attribution panel for a text and the coloured text's PNG (docs/page.md, "Text"),
// in headless Chromium on the built site: the panel says what to do before a text and before
// a run; Attribute runs Self-Attention Attribution on the text model's graphs in the Worker,
// and the panel's head importance (every block × head) and the tree's top token match the
// CLI's `attribute --text` on the same text (same graphs, same m); "Download PNG" saves the
// coloured text, which decodes and has coloured pixels. The weights file is downloaded once. Every wait is on a state the page
// exposes (body[data-model-ready], body[data-text-explained], the panel's data-state).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { skipReason, siteAndBrowser, openPage, paths, WAIT_MS } from './harness.js';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';

const skip = skipReason() ?? (existsSync(DEFAULT_TEXT_MODEL) ? false : 'the default text model is not built: run `npm run build`');
const NAME = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
const SENTENCE = 'the acting is superb, but the plot is a complete mess';

let env; // { site, browser, close }
let s; // { page, requests, errors }

before(async () => {
  if (skip) return;
  env = await siteAndBrowser();
  s = await openPage(env.browser, env.site.url);
  await s.page.waitForSelector('body[data-model-ready="true"]');
});
after(() => env?.close());

// The CLI's attribution of the same text (the default m = 20, every block).
function cliAttribution(text) {
  const out = mkdtempSync(path.join(os.tmpdir(), 'text-attr-'));
  try {
    execFileSync(process.execPath, [path.join(paths.root, 'cli', 'vit-relevance.js'), 'attribute', '--text', text, '--out', path.join(out, 'a')], { stdio: 'pipe' });
    return JSON.parse(readFileSync(path.join(out, 'a', 'attribution.json'), 'utf8'));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

test('the Attribution panel attributes a text as the CLI does: head importance and the tree over its tokens', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  const value = await page.$eval('#model-select', (sel, n) => [...sel.options].find((o) => o.textContent.startsWith(n))?.value, NAME);
  await page.selectOption('#model-select', value);
  await page.waitForSelector(`body[data-model="${NAME}"][data-model-ready="true"]`);
  await page.waitForSelector('#attribution[data-state="empty"]');
  assert.ok(await page.isVisible('#attribution'), 'the panel shows in text mode');
  assert.match(await page.textContent('#attr-status'), /^Type a text first/);
  assert.ok(await page.isDisabled('#attr-run'));
  assert.ok(await page.isDisabled('#text-png'));

  await page.fill('#text-input', SENTENCE);
  await page.waitForSelector(`body[data-text-explained="${SENTENCE}"]`);
  await page.waitForSelector('#attribution[data-state="ready"]');
  assert.match(await page.textContent('#attr-status'), /^Press Attribute/);
  assert.ok(!s.requests.some((u) => u.includes(`${NAME}.attr`)), 'no attribution graph before Attribute is pressed');

  await page.click('#attr-run');
  await page.waitForSelector('#attribution[data-state="done"]');
  const cli = cliAttribution(SENTENCE);
  const cells = await page.$$eval('#attr-heads td', (tds) => tds.map((td) => ({ block: Number(td.dataset.block), head: Number(td.dataset.head), value: Number(td.dataset.value) })));
  const heads = cli.blocks[0].headImportance.length;
  assert.equal(cells.length, cli.blocks.length * heads, 'a cell per block × head');
  for (const c of cells) {
    const want = cli.blocks[c.block].headImportance[c.head];
    assert.ok(Math.abs(c.value - want) <= 1e-4 + 0.02 * Math.abs(want), `block ${c.block} head ${c.head}: page ${c.value}, CLI ${want}`);
  }
  const tree = await page.$eval('#attr-text-tree', (b) => ({ ...b.dataset, tokens: [...b.querySelectorAll('text')].map((t) => t.textContent), arcs: b.querySelectorAll('path[stroke]').length }));
  assert.deepEqual(tree.tokens, cli.tokens, 'the tree is drawn over the text\'s tokens');
  assert.ok(cli.tokens.includes(tree.topToken), `top token "${tree.topToken}" is one of the text's`);
  assert.equal(tree.topToken, cli.tree.topToken, 'the same top token as the CLI');
  assert.equal(Number(tree.top), cli.tree.top);
  assert.equal(Number(tree.edges), cli.tree.edges.length);
  assert.equal(tree.arcs, cli.tree.edges.length, 'an arc per edge');
  assert.ok(await page.isVisible('#attr-text-tree svg'));
  assert.match(await page.textContent('#attr-status'), /all \d+ blocks attributed/);
  // the attribution graphs read the weights file the explainer's graphs read: downloaded once
  assert.equal(s.requests.filter((u) => new URL(u).pathname.endsWith(`/${NAME}.weights.bin`)).length, 1, 'the weights requested once');
  assert.ok(!s.requests.some((u) => u.includes('.attribution.bin')), 'no weights file of the attribution graphs\' own');
  assert.deepEqual(s.errors, [], 'no error in the page');
});

test('"Download PNG" saves the coloured text, which decodes and has coloured pixels', { skip, timeout: WAIT_MS }, async () => {
  const page = s.page;
  await page.waitForSelector(`body[data-text-explained="${SENTENCE}"]`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#text-png')]);
  assert.match(download.suggestedFilename(), /\.png$/);
  const { data, info } = await sharp(await download.path()).raw().toBuffer({ resolveWithObject: true });
  assert.ok(info.width > 100 && info.height > 50, `${info.width}×${info.height}`);
  let coloured = 0;
  for (let i = 0; i < data.length; i += info.channels) {
    const [r, g, b] = [data[i], data[i + 1], data[i + 2]];
    if (Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
  }
  assert.ok(coloured > 500, `coloured pixels: ${coloured}`);
});
