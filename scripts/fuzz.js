#!/usr/bin/env node
// `npm run fuzz -- --seconds N`: builds the libFuzzer targets of tests/fuzz (clang, ASan +
// UBSan, build/fuzz) and runs each for N seconds from its committed seed corpus
// (tests/fuzz/corpus/<target>; new inputs go to build/fuzz/corpus, never into the
// repository). Prints each target's execution count and the total; a crash, a sanitizer
// report or a broken invariant keeps its input under build/fuzz/crashes and makes the
// exit status non-zero.
//   --seconds N     per target (default 60)
//   --targets a,b   a subset (default: every tests/fuzz/fuzz_*.cpp)
//   --jobs N        targets run side by side (default: all at once, so no core idles
//                   while the last ones finish; each still runs N seconds)
//   --seed N        libFuzzer's seed (default 1, so CI runs are repeatable)
//   --min-executions N   if the round's total falls short (a busy machine), up to two
//                   more rounds (default 0: none)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, cpSync } from 'node:fs';
import path from 'node:path';
import { projectPaths } from './paths.js';

const { root, build } = projectPaths();
const fuzzSources = path.join(root, 'tests', 'fuzz');
const buildDir = path.join(build, 'fuzz');

function options(argv) {
  const out = { seconds: 60, targets: null, jobs: Infinity, seed: 1, 'min-executions': 0 };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    const value = argv[++i];
    if (!(key in out) || value === undefined) throw new Error(`fuzz: unknown option or missing value: ${argv[i - 1]}`);
    if (key === 'targets') out.targets = value.split(',');
    else if (!/^\d+$/.test(value) || (Number(value) < 1 && key !== 'min-executions')) throw new Error(`fuzz: --${key} must be a positive integer, got ${value}`);
    else out[key] = Number(value);
  }
  return out;
}

function run(command, args, env = {}) {
  const r = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`fuzz: ${command} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

function buildTargets(targets) {
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt'))) {
    run('cmake', ['-S', root, '-B', buildDir, '-DCMAKE_BUILD_TYPE=RelWithDebInfo', '-DVITREL_FUZZ=ON'],
      { CC: 'clang', CXX: 'clang++' });
  }
  run('cmake', ['--build', buildDir, '-j', '2', '--target', ...targets]);
}

// One target for `seconds`; resolves to { name, executions, crashed, log }.
function fuzzTarget(name, { seconds, seed }) {
  const corpus = path.join(buildDir, 'corpus', name);
  const crashes = path.join(buildDir, 'crashes');
  mkdirSync(corpus, { recursive: true });
  mkdirSync(crashes, { recursive: true });
  const seeds = path.join(fuzzSources, 'corpus', name);
  if (existsSync(seeds)) cpSync(seeds, corpus, { recursive: true });
  const args = [`-max_total_time=${seconds}`, `-seed=${seed}`, '-print_final_stats=1', '-timeout=10',
    '-rss_limit_mb=2048', '-max_len=4096', `-artifact_prefix=${crashes}/${name}-`, corpus];
  return new Promise((resolve) => {
    const child = spawn(path.join(buildDir, 'tests', 'fuzz', name), args, {
      cwd: root,
      env: { ...process.env, ASAN_OPTIONS: 'halt_on_error=1:detect_leaks=1', UBSAN_OPTIONS: 'halt_on_error=1:print_stacktrace=1' },
    });
    let log = '';
    child.stdout.on('data', (d) => { log += d; });
    child.stderr.on('data', (d) => { log += d; });
    child.on('close', (code, signal) => {
      // libFuzzer prints the count on a clean finish; a crash report carries it as "#N".
      const stat = /stat::number_of_executed_units:\s*(\d+)/.exec(log);
      const lastStep = [...log.matchAll(/^#(\d+)\s/gm)].at(-1);
      const executions = Number(stat?.[1] ?? lastStep?.[1] ?? 0);
      resolve({ name, executions, crashed: code !== 0 || signal !== null, log });
    });
  });
}

async function main() {
  const opts = options(process.argv.slice(2));
  const all = readdirSync(fuzzSources).filter((f) => /^fuzz_.*\.cpp$/.test(f)).map((f) => f.slice(0, -4)).sort();
  const targets = opts.targets ?? all;
  const unknown = targets.filter((t) => !all.includes(t));
  if (unknown.length) throw new Error(`fuzz: unknown target(s) ${unknown.join(', ')} (have ${all.join(', ')})`);
  buildTargets(targets);

  // One round: every target for `seconds`, `jobs` at a time.
  const round = async () => {
    const queue = [...targets];
    const done = [];
    const worker = async () => {
      while (queue.length) {
        const r = await fuzzTarget(queue.shift(), opts);
        console.log(`fuzz: ${r.name}: ${r.executions} executions in ${opts.seconds} s, ${r.crashed ? 'CRASHED' : 'no crash'}`);
        if (r.crashed) console.log(r.log.split('\n').filter((l) => !/^#\d+\s/.test(l)).slice(-60).join('\n'));
        done.push(r);
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.jobs, targets.length) }, worker));
    return done;
  };
  // A busy machine may fall short of --min-executions: up to two more rounds, which go on
  // from the corpus the first one grew.
  let results = await round();
  const total = () => results.reduce((n, r) => n + r.executions, 0);
  for (let extra = 0; extra < 2 && total() < opts['min-executions'] && !results.some((r) => r.crashed); extra++) {
    console.log(`fuzz: ${total()} executions, below --min-executions ${opts['min-executions']}: another round`);
    const more = await round();
    results = results.map((r) => {
      const m = more.find((x) => x.name === r.name);
      return { ...m, executions: r.executions + m.executions };
    });
  }

  const executions = results.reduce((n, r) => n + r.executions, 0);
  const crashed = results.filter((r) => r.crashed);
  console.log(`fuzz: ${executions} executions in total, ${crashed.length} crash(es)`
    + (crashed.length ? ` (${crashed.map((r) => r.name).join(', ')}; inputs kept in ${path.relative(root, buildDir)}/crashes)` : ''));
  // The line scripts/count-tests.js adds to the `npm test` total: one test per target.
  console.log(`fuzz targets: ${results.length - crashed.length} passed, ${crashed.length} failed`);
  process.exitCode = crashed.length ? 1 : 0;
}

main().catch((err) => {
  console.error(err.message);
  process.exitCode = 2;
});
