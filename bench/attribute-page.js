// Part of `npm run bench -- attribute`: the whole Self-Attention Attribution of catdog
// (every block, m = 20) run by the page's Attribution panel in headless Chromium, with
// the page's peak memory against the target (≤ 1 GB). The measure is the resident
// set of the renderer process that holds the page and its Worker (the onnxruntime and
// core WebAssembly heaps, JS heaps, canvases): the largest VmHWM (the kernel's peak
// resident set) read from /proc/PID/status every 50 ms during the run. Sampled, not read
// once at the end, because Chromium resets VmHWM from time to time (clear_refs); each
// sample still covers the peak since the last reset. Linux only; elsewhere the figure is
// reported as unavailable.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { skipReason, openReadyPage, sample, waitForHeat, choosePhoto, firstModel } from '../tests/browser/harness.js';
import { untilPage } from './page-state.js';

const GB = 1024 ** 3;

// pid → { ppid, cmdline } of every process we can read. Chromium's zygote children
// rewrite their command line into one space-separated string, so it is kept as text.
function processTable() {
  const table = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(name), { ppid, cmdline: readFileSync(`/proc/${name}/cmdline`, 'utf8') });
    } catch { /* the process ended meanwhile */ }
  }
  return table;
}

// Peak resident set (bytes, since Chromium's last reset) of each Chromium renderer started by this process.
function rendererMemory() {
  const table = processTable();
  const ours = (pid) => {
    for (let p = pid; p > 1; p = table.get(p)?.ppid ?? 0) if (p === process.pid) return true;
    return false;
  };
  const out = [];
  for (const [pid, { cmdline }] of table) {
    if (!/(^|[\s\0])--type=renderer([\s\0]|$)/.test(cmdline) || !ours(pid)) continue;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (field) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? 0) * 1024;
      out.push({ pid, peak: kb('VmHWM') });
    } catch { /* ended */ }
  }
  return out;
}

export async function pageAttributionBench({ steps = 20 } = {}) {
  const reason = skipReason() ?? (firstModel().attribution ? null : 'the model has no attribution graphs');
  if (reason) return console.log(`  page: skipped: ${reason}`);
  const session = await openReadyPage();
  try {
    const { page } = session;
    await choosePhoto(page, sample('catdog.png'));
    await waitForHeat(page, 'c243');
    await page.fill('#attr-blocks', 'all');
    await page.fill('#attr-steps', String(steps));
    await page.dispatchEvent('#attr-steps', 'change');
    const linux = existsSync('/proc/self/status');
    const peaks = new Map(); // renderer pid → largest VmHWM seen
    const readPeaks = () => { for (const r of rendererMemory()) peaks.set(r.pid, Math.max(peaks.get(r.pid) ?? 0, r.peak)); };
    if (linux) readPeaks();
    const loaded = new Map(peaks);
    const sampler = linux ? setInterval(readPeaks, 50) : null;
    const t0 = performance.now();
    await page.click('#attr-run');
    await untilPage(page, () => document.querySelector('#attribution').dataset.runsFinished, null, { timeout: 1_800_000 });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const status = await page.textContent('#attr-status');
    console.log(`  page (headless Chromium, the Attribution panel, catdog, every block, m = ${steps}): ${seconds.toFixed(1)} s — ${status}`);
    if (!linux) return console.log('  page peak memory: not measured (needs Linux /proc)');
    readPeaks();
    const [pid, peak] = [...peaks].reduce((a, e) => (e[1] > a[1] ? e : a), [0, 0]);
    if (!pid) return console.log('  page peak memory: not measured (no renderer process found)');
    const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
    console.log(`  page peak memory: ${mb(peak)} = ${(peak / GB).toFixed(2)} GB (the page's renderer process, page + Worker, `
      + `VmHWM sampled every 50 ms; ${mb(loaded.get(pid) ?? 0)} before the attribution) (target ≤ 1 GB)`);
  } finally {
    await session.close();
  }
}
