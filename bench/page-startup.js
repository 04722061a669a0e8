// A returning visit (the model already in Cache Storage), timed in the page
// (bench/browser.js): from the page's navigation start to "model ready", with the Worker's
// phases (web/lib/load-phases.js: files read, onnxruntime compiled, graph prepared), and to
// the explainer and target graphs' sessions, which open after ready while the Worker is idle.
// `visits` reloads of an open page → [{ readyMs, sessionsReadyMs, fromCache, phaseMs }], in load order.
export async function pageStartups(page, visits) {
  const out = [];
  for (let i = 0; i < visits; i++) {
    await page.reload();
    await page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
    await page.waitForFunction(() => window.__vitrel.timeline.sessionsReady, null, { timeout: 180_000 });
    const { at, phaseMs, fromCache, sessionsReadyMs } = await page.evaluate(() => ({
      ...window.__vitrel.timeline.modelReady, sessionsReadyMs: window.__vitrel.timeline.sessionsReady,
    }));
    out.push({ readyMs: at, sessionsReadyMs, phaseMs, fromCache });
  }
  return out;
}
