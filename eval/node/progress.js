// The progress line of an evaluation on stderr:
//   [ 123/500] 24.6% 1.9 img/s ETA 3m12s  n01440764_tench.JPEG
//   [   3/500]  0.6% 21 s/img ETA 2h53m  n01443537_goldfish.JPEG   (under one a second)
// On a terminal it is rewritten in place, every second while an item runs, so the ETA
// counts down through a slow item; in a log (not a TTY) a line is written each
// time another ~5% is done or 30 s have passed, so logs stay short. The rate counts only
// the items processed in this session: items resumed from an earlier run took no time now.

const LOG_STEP = 0.05;
const LOG_INTERVAL_MS = 30_000;

// 192 → "3m12s", 3725 → "1h02m", 9.4 → "9s".
export function formatDuration(seconds) {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

// Items per second and seconds left, from this session's items only; null until one is done.
export function estimate({ processed, elapsedMs, remaining }) {
  if (processed <= 0 || elapsedMs <= 0) return { rate: null, etaSeconds: null };
  const rate = processed / (elapsedMs / 1000);
  return { rate, etaSeconds: remaining / rate };
}

// 1.94 → "1.9 img/s", 23.4 → "23 img/s", 0.05 → "20 s/img", 0.4 → "2.5 s/img", 1/150 → "2m30s/img";
// unit: what an item is ("img", "mosaic", "review", "sentence").
export function formatRate(rate, unit = 'img') {
  if (rate === null || !(rate > 0)) return `-- ${unit}/s`;
  if (rate >= 1) return `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)} ${unit}/s`;
  const seconds = 1 / rate;
  return `${seconds < 10 ? seconds.toFixed(1) : seconds < 60 ? Math.round(seconds) : formatDuration(seconds)}${seconds < 60 ? ' s' : ''}/${unit}`;
}

export function formatProgressLine({ done, total, rate, etaSeconds, current = '', unit = 'img' }) {
  const width = String(total).length;
  const pct = total > 0 ? (100 * done) / total : 100;
  const speed = formatRate(rate, unit);
  const eta = etaSeconds === null ? '--' : formatDuration(etaSeconds);
  return `[${String(done).padStart(width)}/${total}] ${pct.toFixed(1).padStart(5)}% ${speed} ETA ${eta}${current ? `  ${current}` : ''}`;
}

// Calls fn every second until the returned stop() (the timer never keeps Node alive).
function everySecond(fn) {
  const timer = setInterval(fn, 1000);
  timer.unref?.();
  return () => clearInterval(timer);
}

// total: items of the run; resumed: how many of them were already done; unit: what an item is.
// → { begin(current), step(), end() }: begin before an item, step after it, end once.
export function createProgress({
  total, resumed = 0, unit = 'img', quiet = false, stream = process.stderr, now = Date.now, isTTY = Boolean(stream?.isTTY), tick = everySecond,
} = {}) {
  if (quiet) return { begin() {}, step() {}, end() {} };
  const started = now();
  let done = resumed;
  let processed = 0;
  let lastStepAt = started;
  let lastLogAt = started;
  let lastLogStep = Math.floor(done / Math.max(total, 1) / LOG_STEP);
  let shown = '';
  let item = '';
  let stopTicking = null;
  const line = (current) => {
    const { rate, etaSeconds } = estimate({ processed, elapsedMs: lastStepAt - started, remaining: total - done });
    // Within an item the ETA counts down, but never below what the items after it take.
    const within = (now() - lastStepAt) / 1000;
    const eta = etaSeconds === null ? null : Math.max(etaSeconds - within, (total - done - 1) / rate, 0);
    return formatProgressLine({ done, total, rate, etaSeconds: eta, current, unit });
  };
  const draw = (current) => {
    const text = line(current);
    // Pad over the previous line's tail; no ANSI codes needed.
    stream.write(`\r${text.padEnd(shown.length)}`);
    shown = text;
  };
  return {
    begin(current) {
      if (!isTTY) return;
      item = current;
      draw(item);
      stopTicking ??= tick(() => draw(item));
    },
    step() {
      done++;
      processed++;
      lastStepAt = now();
      if (isTTY) return draw('');
      const stepNow = Math.floor(done / Math.max(total, 1) / LOG_STEP);
      if (stepNow > lastLogStep || now() - lastLogAt >= LOG_INTERVAL_MS || done === total) {
        stream.write(`${line('')}\n`);
        lastLogStep = stepNow;
        lastLogAt = now();
      }
    },
    end() {
      stopTicking?.();
      stopTicking = null;
      if (isTTY && shown) stream.write('\n');
      shown = '';
    },
  };
}
