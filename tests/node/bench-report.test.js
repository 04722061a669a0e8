// docs/benchmarks.md is written from the figures the benches record (bench/targets.js):
// one row per target, its verdict from the value and the limit, noisy when the machine
// was busier than its cores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchmarksMarkdown } from '../../bench/report.js';

const row = (over) => ({ label: 'page: class switch / forward', value: 4.2, limit: 5, unit: '×', better: 'lower', met: true,
  detail: '', bench: 'browser', measured: '2026-11-28T10:00:00.000Z', machine: 'Some CPU, 2 cores', load: 0.5, ...over });

test('one row per target, grouped by bench, with its verdict and when it was measured', () => {
  const md = benchmarksMarkdown({ targets: {
    'browser.class-switch': row(),
    'embed.files': row({ bench: 'embed', label: 'files', value: 41.3, limit: 40, unit: 'KB', met: false }),
  } }, 2);
  assert.match(md, /## The page in headless Chromium/);
  assert.match(md, /\| page: class switch \/ forward \| 4\.20× \| ≤ 5\.00× \| met \| 2026-11-28, Some CPU, 2 cores \|/);
  assert.match(md, /\| files \| 41\.3 KB \| ≤ 40\.0 KB \| \*\*missed\*\* \|/);
  assert.doesNotMatch(md, /, noisy \(load/);
});

test('a figure measured on a busy machine says so; a higher-is-better target reads ≥', () => {
  const md = benchmarksMarkdown({ targets: { r: row({ bench: 'core', better: 'higher', limit: 20, value: 31, load: 7.5 }) } }, 2);
  assert.match(md, /31\.00× \| ≥ 20\.00× \| met \| 2026-11-28, Some CPU, 2 cores, noisy \(load 7\.5\) \|/);
});

test('no figures yet: the page says how to make them', () => {
  assert.match(benchmarksMarkdown({ targets: {} }), /No figures recorded yet: run `npm run bench`/);
});
