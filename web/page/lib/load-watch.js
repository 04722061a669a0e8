// Watches a model's load for silence. The Worker reports bytes as they arrive and each
// phase as it starts and ends (./load-phases.js), and a long phase that opens several
// graphs reports after each: a load that reports nothing for `silenceMs` has stopped (a
// slow one still reports), and `onSilent(phases)` says so, once per silence, with the
// phases it was in ([] when the Worker never answered). A report after it lifts it.
export function watchLoad({ silenceMs, onSilent }) {
  let last = performance.now();
  let phases = [];
  let told = false;
  const timer = setInterval(() => {
    if (!told && performance.now() - last > silenceMs) {
      told = true;
      onSilent(phases);
    }
  }, Math.min(silenceMs / 4, 5000));
  return {
    heard(now) {
      last = performance.now();
      phases = now;
      told = false;
    },
    stop() { clearInterval(timer); },
  };
}
