// `npm run bench -- text`'s ERASER figure: `vit-relevance eval rationales` over the 199 test
// reviews with every method, as the README runs it, timed from the command line (model
// load and reports included) into a fresh folder (target ≤ 15 minutes on the 2-core
// machine). VITREL_BENCH_RATIONALES=0 skips it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { reportTarget } from './targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function rationalesTime() {
  if (process.env.VITREL_BENCH_RATIONALES === '0') return;
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'vitrel-bench-rationales-')), 'run');
  try {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [path.join(root, 'cli', 'vit-relevance.js'), 'eval', 'rationales', '--out', out, '--quiet'], { encoding: 'utf8' });
    const s = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`eval rationales failed: ${r.stderr.trim().split('\n').pop()}`);
    const summary = JSON.parse(readFileSync(path.join(out, 'rationales.json'), 'utf8'));
    reportTarget('text.eval-rationales', {
      bench: 'text', label: 'eval rationales over the ERASER test reviews, every method', value: s, limit: 15 * 60, unit: 's',
      detail: `${summary.n} reviews, ${summary.methods.length} methods, ${(s / summary.n).toFixed(2)} s each, load ${os.loadavg()[0].toFixed(1)}`,
    });
  } finally {
    rmSync(path.dirname(out), { recursive: true, force: true });
  }
}
