// A returning visit (the model already in Cache Storage), timed in the page
// (bench/browser.js): from the page's navigation start to "model ready", with the Worker's
// phases (web/lib/load-phases.js: files read, onnxruntime compiled, graph prepared).
// `visits` reloads of an open page → [{ readyMs, fromCache, phaseMs }], in load order.
export async function pageStartups(page, visits) {
  const out = [];
  for (let i = 0; i < visits; i++) {
    await page.reload();
    await page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
    const { at, phaseMs, fromCache } = await page.evaluate(() => window.__vitrel.timeline.modelReady);
    out.push({ readyMs: at, phaseMs, fromCache });
  }
  return out;
}
