// The path a visitor takes (issue 30), timed in the page (bench/browser.js): the page
// loads, a photo is chosen the moment the page says the model is ready, and its first heat
// map shows. Everything is measured from the page's navigation start: "ready", each
// graph's session (when it opened, and onnxruntime's time creating it), the first heat map,
// with the Worker's phases (web/lib/load-phases.js) and the explanation's own timings, and
// the forward pass of the same page, timed after that map.
import path from 'node:path';
import { openPage } from '../tests/browser/harness.js';

// A simulated network for the first visit: 50 ms round trip, 50 Mbit/s each way.
export const LINK = { latencyMs: 50, mbitPerS: 50 };

// The page at its first map of `photo` → { readyMs, firstMapMs, sessions, phaseMs,
// compileMs, fromCache, bytes, explainMs, relevanceMs, predictedBy, forwardMs }.
async function toFirstMap(page, photo, forwardRuns) {
  await page.waitForSelector('body[data-model-ready="true"]', { timeout: 300_000 });
  await page.setInputFiles('#file-input', photo);
  await page.waitForFunction((name) => window.__vitrel.state.photo?.name === name && window.__vitrel.timeline.firstHeatmap,
    path.basename(photo), { timeout: 300_000 });
  const out = await page.evaluate(() => {
    const { timeline: t, state: s } = window.__vitrel;
    return {
      readyMs: t.modelReady.at, chosenMs: t.photoChosen, firstMapMs: t.firstHeatmap, sessions: { ...t.sessions },
      phaseMs: t.modelReady.phaseMs, compileMs: t.modelReady.compileMs, fromCache: t.modelReady.fromCache,
      explainMs: s.timings.explainMs, relevanceMs: s.timings.relevanceMs, predictedBy: s.timings.predictedBy,
    };
  });
  const times = await page.evaluate((n) => window.__vitrel.benchForward(n), forwardRuns);
  out.forwardMs = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
  return out;
}

// `visits` reloads of an open page whose model is cached (returning visits), in order.
export async function returningVisits(page, visits, photo, forwardRuns = 7) {
  const out = [];
  for (let i = 0; i < visits; i++) {
    await page.reload();
    out.push(await toFirstMap(page, photo, forwardRuns));
  }
  return out;
}

// A first visit: a fresh browser context (empty caches) on the simulated link.
export async function firstVisit(browser, url, photo, forwardRuns = 7) {
  const throughput = (LINK.mbitPerS * 1e6) / 8; // bytes per second
  const { page, context } = await openPage(browser, url, undefined, {
    beforeLoad: async (ctx, p) => {
      const cdp = await ctx.newCDPSession(p);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false, latency: LINK.latencyMs, downloadThroughput: throughput, uploadThroughput: throughput,
      });
    },
  });
  try {
    return await toFirstMap(page, photo, forwardRuns);
  } finally {
    await context.close();
  }
}
