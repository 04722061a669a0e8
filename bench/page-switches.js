import { untilPage } from './page-state.js';

// With split graphs the Worker caches the photo's target-independent tensors after its
// first heat map, while the visitor looks at it; a class switch is measured once that is
// done (the page idle), as a visitor's first click comes seconds later. → the caching's
// model time in ms, or null without split graphs (every switch runs the whole explainer).
export async function photoCached(page) {
  if (!await page.evaluate(() => window.__vitrel.timeline.modelReady.split)) return null;
  await untilPage(page, () => window.__vitrel.timeline.photoCached);
  return page.evaluate(() => window.__vitrel.timeline.photoCached.modelMs);
}

// The page's class switch, timed in the page (bench/browser.js, bench/embed.js): each of
// the other top-5 classes in turn (none cached yet), from the click to its heat map.
// → { ids (the top-5 class ids), switches (ms), graphMs (the Worker's graph time of each) }
export async function pageClassSwitches(page) {
  const switches = [];
  const graphMs = [];
  const ids = await page.$$eval('#top5 button', (bs) => bs.map((b) => b.dataset.classId));
  for (const id of ids.slice(1)) {
    await page.click(`#top5 button[data-class-id="${id}"]`);
    await untilPage(page, (t) => {
      const tl = window.__vitrel.timeline;
      return tl.lastRender?.target === t && tl.lastRender.at > tl.classChosen.at;
    }, `c${id}`, { timeout: 180_000 });
    switches.push(await page.evaluate(() => window.__vitrel.timeline.lastRender.at - window.__vitrel.timeline.classChosen.at));
    graphMs.push(await page.evaluate(() => window.__vitrel.timeline.timings.explainMs));
  }
  return { ids, switches, graphMs };
}
