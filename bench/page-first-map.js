// The path a visitor takes (issue 30), timed in the page (bench/browser.js): the page
// loads, a photo is chosen the moment the page says the model is ready, and its first heat
// map shows. Everything is measured from the page's navigation start: "ready" (its last
// phase, `prepare`, is the forward graph's session), the session of the graph that explains
// the default method (its family's graph where the model has one: when it opened, and
// onnxruntime's time creating it), the first heat map,
// with the Worker's phases (web/lib/load-phases.js) and the explanation's own timings, and
// the forward pass of the same page, timed after that map.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchProfile, openPage } from '../tests/browser/harness.js';
import { untilPage, untilReady } from './page-state.js';

// An open page's first heat map of `file`, chosen now → ms from choosing it to the map.
export async function photoToHeatMap(page, file) {
  await page.setInputFiles('#file-input', file);
  await untilPage(page, (name) => document.body.dataset.photo === name
    && window.__vitrel.timeline.firstHeatmap, path.basename(file));
  return page.evaluate(() => window.__vitrel.timeline.firstHeatmap - window.__vitrel.timeline.photoChosen);
}

// A simulated network for the first visit: 50 ms round trip, 50 Mbit/s each way.
export const LINK = { latencyMs: 50, mbitPerS: 50 };

// The page at its first map of `photo` → { readyMs, chosenMs, sentMs (read, sent to the Worker), firstMapMs,
// explainer: { at, ms } (its session open; onnxruntime's time creating it), phaseMs,
// compileMs, fromCache, explainMs, relevanceMs, predictedBy, forwardMs }.
async function toFirstMap(page, photo, forwardRuns) {
  // Seen as the page sets it: waitForSelector's polling backs off to 500 ms, and the photo was
  // chosen 470 ms after ready on average (5 visits), a wait of the bench, not of the page.
  await untilReady(page);
  await photoToHeatMap(page, photo);
  const out = await page.evaluate(() => {
    const { timeline: t } = window.__vitrel;
    return {
      readyMs: t.modelReady.at, chosenMs: t.photoChosen, sentMs: t.analyzeSent, firstMapMs: t.firstHeatmap, explainer: t.explainerReady,
      phaseMs: t.modelReady.phaseMs, compileMs: t.modelReady.compileMs, fromCache: t.modelReady.fromCache,
      explainMs: t.timings.explainMs, relevanceMs: t.timings.relevanceMs, predictedBy: t.timings.predictedBy,
    };
  });
  const times = await page.evaluate((n) => window.__vitrel.benchForward(n), forwardRuns);
  out.forwardMs = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  return out;
}

// A new tab of `page`'s browser, `page` closed first: a visitor who comes back later (its
// renderer process gone, so nothing of the visit before is still compiled in memory).
async function nextTab(page) {
  const next = await page.context().newPage();
  await page.close();
  return next;
}

// `visits` returning visits (the model cached) to an open page's address, in order, each
// keeping of the link the page has written there its model alone: a reload would open the
// link's photo too, which a visitor who comes back to explain a photo of theirs does not.
// newTab: each visit in a new tab, the one before closed first, as a visitor who comes back
// later: a tab reloaded at once still holds the page it leaves's Worker for about 2 s
// (Chromium ends a Worker's threads after a grace period), its memory beside the new page's.
export async function returningVisits(page, visits, photo, forwardRuns = 7, { newTab = false } = {}) {
  const out = [];
  const address = new URL(page.url());
  address.search = new URLSearchParams([...address.searchParams].filter(([key]) => key === 'model')).toString();
  let visited = page;
  for (let i = 0; i < visits; i++) {
    if (newTab) visited = await nextTab(visited);
    await visited.goto(address.href);
    out.push(await toFirstMap(visited, photo, forwardRuns));
  }
  return out;
}

// Puts a page that is about to open on the simulated link (openPage's beforeLoad) → a
// function that takes it off again (to loopback, as the returning visits are timed).
async function onLink(context, page) {
  const throughput = (LINK.mbitPerS * 1e6) / 8; // bytes per second
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: LINK.latencyMs, downloadThroughput: throughput, uploadThroughput: throughput,
  });
  return () => cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
}

// A first visit: a fresh browser context (empty caches) on the simulated link.
export async function firstVisit(browser, url, photo, forwardRuns = 7) {
  const { page, context } = await openPage(browser, url, undefined, { beforeLoad: onLink });
  try {
    return await toFirstMap(page, photo, forwardRuns);
  } finally {
    await context.close();
  }
}

// Notes when the page's first <vit-relevance> element has explained its photo (the event
// is the element's own, caught on its way down to it), from navigation start.
const RECORD_FIRST_ELEMENT_MAP = () => {
  document.addEventListener('explained', () => { window.__firstElementMap ??= performance.now(); }, true);
  document.addEventListener('error', (e) => { if (e.target?.localName === 'vit-relevance') window.__firstElementError ??= e.detail?.message; }, true);
};

// When the page's first element explained its photo, ms from navigation start; its
// error, if it failed.
async function firstElementMap(page) {
  await untilPage(page, () => window.__firstElementMap || window.__firstElementError);
  const { at, error } = await page.evaluate(() => ({ at: window.__firstElementMap, error: window.__firstElementError }));
  if (error) throw new Error(`the element failed: ${error}`);
  return at;
}

// A page of elements (or the iframe route) at `url`: page load → its first element's map,
// on a first visit over the simulated link, then on `returning` reloads (model cached,
// loopback). → { firstMs, returningMs: [] }
export async function elementVisits(browser, url, returning) {
  let offLink = null;
  const { page, context } = await openPage(browser, url, undefined, {
    beforeLoad: async (ctx, p) => {
      await ctx.addInitScript(RECORD_FIRST_ELEMENT_MAP);
      offLink = await onLink(ctx, p);
    },
  });
  try {
    const firstMs = await firstElementMap(page);
    await offLink();
    const returningMs = [];
    for (let i = 0; i < returning; i++) {
      await page.reload();
      returningMs.push(await firstElementMap(page));
    }
    return { firstMs, returningMs };
  } finally {
    await context.close();
  }
}

// `fn(context)` in a browser with a profile on disk, as a visitor's own (harness.js,
// launchProfile), deleted after (also the scale bench's browser). A reload at once reuses the tab's renderer process, and
// with it V8's compiled onnxruntime; a visitor who comes back later opens a new tab, in a
// new process, which reads that code from Chrome's code cache on disk and compiles much of
// it again (docs/experiments.md, "Two kinds of returning visit").
export async function inProfile(fn) {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'vitrel-bench-profile-'));
  const context = await launchProfile(profile);
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// A visitor who comes back later to the page at `url`: a first visit that explains `photos`
// (the model into Cache Storage, onnxruntime's code into the code cache), then `visits`
// returning visits to `photo`, each in a new tab after the one before is closed. → as
// returningVisits.
export function laterVisits(url, photos, visits, photo) {
  return inProfile(async (context) => {
    const page = context.pages()[0] ?? await context.newPage(); // the tab it opens with
    await page.goto(url);
    await untilReady(page);
    for (const name of photos) await photoToHeatMap(page, name);
    return returningVisits(page, visits, photo, 7, { newTab: true });
  });
}

// The same for a page of elements at `url`: a first visit, then `visits` returning visits in
// new tabs. → ms from navigation start to the first element's map, per returning visit.
export function elementLaterVisits(url, visits) {
  return inProfile(async (context) => {
    await context.addInitScript(RECORD_FIRST_ELEMENT_MAP);
    let page = context.pages()[0] ?? await context.newPage();
    await page.goto(url);
    await firstElementMap(page);
    const out = [];
    for (let i = 0; i < visits; i++) {
      page = await nextTab(page);
      await page.goto(url);
      out.push(await firstElementMap(page));
    }
    return out;
  });
}
