// Waiting for a state the page exposes, without running anything in it meanwhile. Playwright's
// waitForFunction polls on every animation frame by default, which keeps the page drawing 60
// frames a second: about 70 ms of CPU a second on a 2-core machine (200–350 ms over 3 s,
// against 0–10 idle), taken from the Worker whose times the bench measures. A visitor who waits
// for a map draws nothing meanwhile, so the bench should not either.

// Resolves once `predicate(arg)` holds in `page`. It is checked whenever an attribute changes in
// the document (the page sets its states on <body>, its canvases and elements: immediate) and
// every 100 ms (for a state held in a variable alone). `predicate` runs in the page: it must be
// self-contained, as for page.evaluate; `arg` is JSON.
export function untilPage(page, predicate, arg = null, { timeout = 300_000 } = {}) {
  return page.evaluate(`(${waitInPage})(${predicate}, ${JSON.stringify(arg)}, ${timeout})`);
}

// Resolves once the page says its model is ready (web/page/model.js sets it on <body>).
export function untilReady(page, options) {
  return untilPage(page, () => document.body.dataset.modelReady === 'true', null, options);
}

// Runs in the page (untilPage gives it as source, with the predicate's).
function waitInPage(predicate, arg, timeout) {
  return new Promise((resolve, reject) => {
    const stop = () => { observer.disconnect(); clearInterval(interval); clearTimeout(timer); };
    const check = () => {
      try {
        if (!predicate(arg)) return;
      } catch {
        return; // not yet: the page's state may not be there before its script has run
      }
      stop();
      resolve();
    };
    const observer = new MutationObserver(check);
    observer.observe(document.documentElement, { attributes: true, subtree: true });
    const interval = setInterval(check, 100);
    const timer = setTimeout(() => { stop(); reject(new Error(`timed out after ${timeout} ms waiting for ${predicate}`)); }, timeout);
    check();
  });
}
