// The bench's targets, recorded where they are measured. Each bench reports a measured
// figure against its target through `reportTarget`, which prints the line a person reads
// and keeps the figure in build/bench/targets.json: one current value per target, the
// last run's, with when, where and how busy the machine was. `npm run bench -- report`
// writes docs/benchmarks.md from that file, so the docs never hold hand-kept figures.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TARGETS_FILE = path.join(root, 'build', 'bench', 'targets.json');

// The machine a figure was measured on: targets are ratios within one run, but the
// reader should know which CPU and how many cores made them.
function machine() {
  const cpus = os.cpus();
  return `${cpus[0]?.model?.trim() ?? 'unknown CPU'}, ${cpus.length} cores`;
}

export function readTargets(file = TARGETS_FILE) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    if (err.code === 'ENOENT') return { targets: {} };
    throw new Error(`${file}: ${err.message}`);
  }
}

const met = (value, { limit, better }) => (better === 'higher' ? value >= limit : value <= limit);
const format = (value, unit) => (unit === '×' ? `${value.toFixed(2)}×` : `${value.toFixed(unit === 'KB' || unit === '%' ? 1 : 0)} ${unit}`);

/**
 * Prints `label: value (target ≤ limit) OK|MISSED` and records it under `id`.
 * @param {string} id stable key, e.g. 'browser.first-heat-map'
 * @param {{ label: string, value: number, limit: number, unit?: string, better?: 'lower'|'higher',
 *   detail?: string, bench: string }} t the measured value, its limit and what it is
 */
export function reportTarget(id, { label, value, limit, unit = '×', better = 'lower', detail = '', bench }) {
  const ok = met(value, { limit, better });
  const sign = better === 'higher' ? '≥' : '≤';
  console.log(`${label}: ${format(value, unit)}${detail ? ` (${detail})` : ''} (target ${sign} ${format(limit, unit)}) ${ok ? 'OK' : 'MISSED'}`);
  const all = readTargets();
  all.targets[id] = {
    label, value, limit, unit, better, met: ok, detail, bench,
    measured: new Date().toISOString(), machine: machine(), load: Number(os.loadavg()[0].toFixed(2)),
  };
  mkdirSync(path.dirname(TARGETS_FILE), { recursive: true });
  const tmp = `${TARGETS_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`);
  renameSync(tmp, TARGETS_FILE);
  return ok;
}

export { format as formatTarget, met as targetMet };
