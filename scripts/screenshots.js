#!/usr/bin/env node
// `npm run screenshots`: the README's pictures, taken from the real page (the built site in
// headless Chromium): a sample photo explained in the single view and in the grid of every
// method, at a laptop's size. Run after `npm run build`; writes docs/images/*.png.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launch, openPage, paths, skipReason, startSite, waitForHeat, waitForTop5 } from '../tests/browser/harness.js';

const out = path.join(paths.root, 'docs', 'images');
const PHOTO = 'catdog.png';
const CLASS = 'c243'; // bull mastiff: the paper's class-specific example beside "tiger cat"

const reason = skipReason();
if (reason) {
  console.error(`screenshots: ${reason}`);
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const site = await startSite();
const browser = await launch();
try {
  // A link to a sample photo and a class: the page opens both itself.
  const { page } = await openPage(browser, `${site.url}?photo=${PHOTO}&class=243`, { width: 1280, height: 800 });
  await waitForTop5(page, PHOTO);
  await waitForHeat(page, CLASS);
  await page.screenshot({ path: path.join(out, 'page.png') });
  await page.click('#tab-grid');
  await waitForHeat(page, CLASS, 'grid');
  // Every tile but attattr's, which the Attribution panel computes on request.
  await page.waitForFunction(() => [...document.querySelectorAll('#view-grid canvas:not([data-method="attattr"])')]
    .every((c) => c.dataset.rendered === 'heat'));
  await page.locator('#view-grid').screenshot({ path: path.join(out, 'grid.png') });
  console.log(`screenshots: wrote ${path.relative(paths.root, out)}/page.png and grid.png`);
} finally {
  await browser.close();
  await site.close();
}
