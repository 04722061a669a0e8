// A returning visit (the model already in Cache Storage), timed in the page
// (bench/browser.js): from the page's navigation start to "model ready", with the Worker's
// phases (web/lib/load-phases.js: how long init waited for the files, onnxruntime's
// compile, the first session), onnxruntime's compile from its own start (the page's Worker
// starts it before init), and to the other graphs' sessions, which open after ready while
// the Worker is idle.
// `visits` reloads of an open page → [{ readyMs, sessionsReadyMs, fromCache, phaseMs, compileMs }], in load order.
export async function pageStartups(page, visits) {
  const out = [];
  for (let i = 0; i < visits; i++) {
    await page.reload();
    await page.waitForSelector('body[data-model-ready="true"]', { timeout: 180_000 });
    await page.waitForFunction(() => window.__vitrel.timeline.sessionsReady, null, { timeout: 180_000 });
    const { at, phaseMs, compileMs, fromCache, sessionsReadyMs } = await page.evaluate(() => ({
      ...window.__vitrel.timeline.modelReady, sessionsReadyMs: window.__vitrel.timeline.sessionsReady,
    }));
    out.push({ readyMs: at, sessionsReadyMs, phaseMs, compileMs, fromCache });
  }
  return out;
}
