// `npm run bench -- report`: writes docs/benchmarks.md from build/bench/targets.json, the
// figures the benches recorded (bench/targets.js): one current value per target, grouped
// by bench, each with when and on what it was measured. A figure measured while the
// machine was busy (load average above its core count) is marked noisy.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TARGETS_FILE, formatTarget, readTargets } from './targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, 'docs', 'benchmarks.md');

const BENCHES = {
  core: 'The relevance methods in the C++ core (`npm run bench -- core`)',
  explain: 'The explainer graph in Node (`npm run bench -- explain`)',
  browser: 'The page in headless Chromium (`npm run bench -- browser`)',
  embed: 'Embedded elements and the iframe route (`npm run bench -- embed`)',
  eval: 'Evaluations (`npm run bench -- eval`)',
  scale: 'Larger models (`npm run bench -- scale`)',
  soak: 'The page\'s startup, 100 loads beside two CPU hogs (`npm run bench -- soak`): busy by design',
  text: 'Texts: the default BERT in Node and the page (`npm run bench -- text`)',
};

export function benchmarksMarkdown({ targets }, cores = os.cpus().length) {
  const rows = Object.entries(targets);
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench -- report` from the figures the last `npm run bench` runs',
    'recorded (`build/bench/targets.json`). Every target is a ratio measured within one run',
    '(or a size), so it does not depend on how fast the machine is; figures still move by',
    'about ±10 % between runs on a 2-core machine. "noisy" marks a figure measured while the',
    'machine was busier than its cores (load average). How each figure came to be, and what',
    'was tried: [experiments.md](experiments.md).',
    '',
  ];
  if (!rows.length) lines.push('No figures recorded yet: run `npm run bench`, then `npm run bench -- report`.', '');
  const benches = [...new Set(rows.map(([, t]) => t.bench))];
  for (const bench of benches) {
    lines.push(`## ${BENCHES[bench] ?? `\`npm run bench -- ${bench}\``}`, '',
      '| measure | current | target | | measured |', '|---|---|---|---|---|');
    for (const [, t] of rows.filter(([, r]) => r.bench === bench)) {
      const sign = t.better === 'higher' ? '≥' : '≤';
      const noisy = t.load > cores ? `, noisy (load ${t.load})` : '';
      lines.push(`| ${t.label} | ${formatTarget(t.value, t.unit)}${t.detail ? ` (${t.detail})` : ''} `
        + `| ${sign} ${formatTarget(t.limit, t.unit)} | ${t.met ? 'met' : '**missed**'} `
        + `| ${t.measured.slice(0, 10)}, ${t.machine}${noisy} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(out, benchmarksMarkdown(readTargets()));
  console.log(`wrote ${path.relative(root, out)} from ${path.relative(root, TARGETS_FILE)}`);
}
