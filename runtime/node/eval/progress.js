// The progress line of an evaluation on stderr:
//   [ 123/500] 24.6% 1.9 img/s ETA 3m12s  n01440764_tench.JPEG
// On a terminal it is rewritten in place; in a log (not a TTY) a line is written each
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

export function formatProgressLine({ done, total, rate, etaSeconds, current = '' }) {
  const width = String(total).length;
  const pct = total > 0 ? (100 * done) / total : 100;
  const speed = rate === null ? '-- img/s' : `${rate.toFixed(1)} img/s`;
  const eta = etaSeconds === null ? '--' : formatDuration(etaSeconds);
  return `[${String(done).padStart(width)}/${total}] ${pct.toFixed(1).padStart(5)}% ${speed} ETA ${eta}${current ? `  ${current}` : ''}`;
}

// total: items of the run; resumed: how many of them were already done.
// → { begin(current), step(), end() }: begin before an item, step after it, end once.
export function createProgress({ total, resumed = 0, quiet = false, stream = process.stderr, now = Date.now, isTTY = Boolean(stream?.isTTY) } = {}) {
  if (quiet) return { begin() {}, step() {}, end() {} };
  const started = now();
  let done = resumed;
  let processed = 0;
  let lastLogAt = started;
  let lastLogStep = Math.floor(done / Math.max(total, 1) / LOG_STEP);
  let shown = '';
  const line = (current) => {
    const { rate, etaSeconds } = estimate({ processed, elapsedMs: now() - started, remaining: total - done });
    return formatProgressLine({ done, total, rate, etaSeconds, current });
  };
  const draw = (current) => {
    const text = line(current);
    // Pad over the previous line's tail; no ANSI codes needed.
    stream.write(`\r${text.padEnd(shown.length)}`);
    shown = text;
  };
  return {
    begin(current) {
      if (isTTY) draw(current);
    },
    step() {
      done++;
      processed++;
      if (isTTY) return draw('');
      const stepNow = Math.floor(done / Math.max(total, 1) / LOG_STEP);
      if (stepNow > lastLogStep || now() - lastLogAt >= LOG_INTERVAL_MS || done === total) {
        stream.write(`${line('')}\n`);
        lastLogStep = stepNow;
        lastLogAt = now();
      }
    },
    end() {
      if (isTTY && shown) stream.write('\n');
      shown = '';
    },
  };
}
