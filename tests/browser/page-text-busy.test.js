// Typing in the page's text mode on a busy machine (issue 48, item 6): beside two CPU hogs
// (busy loops in processes of their own, as bench/soak.js runs them), a sentence typed key
// by key at 8 characters a second is explained as it is typed, the map shown last is the
// final text's, and no map of an older text is ever shown after a newer one's: every change
// of the drawn text is recorded in the page (body[data-text-explained]). Every wait is on a
// state the page exposes (body[data-model-ready], body[data-text-explained], #busy).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { skipReason, startSite, launch, openPage, WAIT_MS } from './harness.js';
import { recordExplained, assertFollowedTyping } from './text-typing.js';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';

const skip = skipReason() ?? (existsSync(DEFAULT_TEXT_MODEL) ? false : 'the default text model is not built: run `npm run build`');
const NAME = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
const SENTENCE = 'the acting is superb, but the plot is a complete mess';

let site;
let browser;
let hogs = [];

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  hogs = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
});
after(async () => {
  for (const h of hogs) h.kill();
  await browser?.close();
  await site?.close();
});

test('typed beside two CPU hogs, the final map is the final text\'s and no older text is shown after a newer one', { skip, timeout: WAIT_MS }, async () => {
  assert.ok(hogs.every((h) => h.exitCode === null && h.signalCode === null), 'the hogs are running');
  const { page, context } = await openPage(browser, `${site.url}?model=${NAME}`);
  try {
    await page.waitForSelector(`body[data-model="${NAME}"][data-model-ready="true"]`);
    await recordExplained(page);
    await page.focus('#text-input');
    await page.keyboard.type(SENTENCE, { delay: 125 });
    // The final text's map, and the page idle: no request of an older text left to draw.
    await page.waitForFunction((t) => document.body.dataset.textExplained === t && document.querySelector('#busy').hidden, SENTENCE);
    await assertFollowedTyping(page, SENTENCE);
    const view = await page.$eval('#text-view', (v) => ({ text: v.dataset.text, stale: v.classList.contains('stale'),
      words: [...v.querySelectorAll('.text-tile:first-of-type .text')].map((t) => t.textContent).join('') }));
    assert.deepEqual(view, { text: SENTENCE, stale: false, words: SENTENCE });
  } finally {
    await context.close();
  }
});
