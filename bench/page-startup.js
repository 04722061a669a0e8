// A returning visit (the model already in Cache Storage), timed in the page
// (bench/browser.js): from the page's navigation start to "model ready", with the Worker's
// phases (web/lib/load-phases.js: files read, onnxruntime compiled, graph prepared), and to
// the target graph's session, which opens after ready while the visitor chooses a photo.
// `visits` reloads of an open page → [{ readyMs, targetReadyMs, fromCache, phaseMs }], in load order.
export async function pageStartups(page, visits) {
  const out = [];
  for (let i = 0; i < visits; i++) {
    await page.reload();
    await page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
    await page.waitForFunction(() => window.__vitrel.timeline.targetReady, null, { timeout: 180_000 });
    const { at, phaseMs, fromCache, targetReadyMs } = await page.evaluate(() => ({
      ...window.__vitrel.timeline.modelReady, targetReadyMs: window.__vitrel.timeline.targetReady,
    }));
    out.push({ readyMs: at, targetReadyMs, phaseMs, fromCache });
  }
  return out;
}
