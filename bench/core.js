// `npm run bench -- core`: the relevance methods in WebAssembly (through runtime/core.js,
// as the page and the CLI run them) and natively (bench/native/relevance_bench, which this
// builds, runs and reads), on the same random workload, all measured in this one run; plus
// the row-vector rollout against the full-matrix product (natively: the full-matrix
// reference is test and bench code, not in the shipped module). Prints figures and the
// target checks; never fails on speed.
//   VITREL_BENCH_RUNS  runs per figure (median; default 25)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore } from '../runtime/core.js';
import { reportTarget } from './targets.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const nativeBuild = path.join(root, 'build', 'native');
const nativeBench = path.join(nativeBuild, 'bench', 'native', 'relevance_bench');
const RUNS = Math.max(1, Number(process.env.VITREL_BENCH_RUNS ?? 25));
const CONFIGS = [[12, 3], [12, 12]];
const GRID = [14, 14];
const S = 1 + GRID[0] * GRID[1];

// The workload of bench/native/relevance_bench.cpp, bit for bit: xorshift32 per tensor.
function uniform(n, seed, scale, offset) {
  let x = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    x = (x ^ (x << 13)) >>> 0;
    x = (x ^ (x >>> 17)) >>> 0;
    x = (x ^ (x << 5)) >>> 0;
    out[i] = Math.fround(Math.fround(scale * Math.fround((x >>> 8) / 16777216)) + offset);
  }
  return out;
}

function workload(B, h) {
  const n = B * h * S * S;
  const attn = uniform(n, 1, 1, 0);
  for (let r = 0; r < n; r += S) {
    let sum = 0;
    for (let j = 0; j < S; j++) sum = Math.fround(sum + attn[r + j]);
    for (let j = 0; j < S; j++) attn[r + j] = Math.fround(attn[r + j] / sum);
  }
  const shape = [B, h, S, S];
  return {
    attn: { data: attn, shape },
    attn_grad: { data: uniform(n, 2, 2, -1), shape },
    attn_rel: { data: uniform(n, 3, 2, -1), shape },
    attn_rel_classic_last: { data: uniform(h * S * S, 4, 2, -1), shape: [h, S, S] },
    input_rel_classic: { data: uniform(224 * 224, 5, 2, -1), shape: [224, 224] },
    attr: { data: uniform(n, 6, 2, -1), shape },
    // AttnLRP's and CP-LRP's pixel maps (not in the native bench, which predates them).
    input_rel_attnlrp: { data: uniform(224 * 224, 7, 2, -1), shape: [224, 224] },
    input_rel_cp_lrp: { data: uniform(224 * 224, 8, 2, -1), shape: [224, 224] },
  };
}

function medianMs(runs, fn) {
  fn(); // warm-up: first-call compilation and heap growth are not what we measure
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

function runNative() {
  const steps = [];
  if (!existsSync(path.join(nativeBuild, 'CMakeCache.txt'))) {
    steps.push(['cmake', ['-S', root, '-B', nativeBuild, '-DCMAKE_BUILD_TYPE=Release']]);
  }
  steps.push(['cmake', ['--build', nativeBuild, '--target', 'relevance_bench', '-j', '2']]);
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.status !== 0) {
      console.log(`native bench not available: ${cmd} ${args.join(' ')} failed\n${r.stderr}`);
      return null;
    }
  }
  const r = spawnSync(nativeBench, [String(RUNS)], { encoding: 'utf8' });
  if (r.status !== 0) {
    console.log(`native bench failed (${r.status}):\n${r.stderr}`);
    return null;
  }
  const line = r.stdout.split('\n').find((l) => l.startsWith('JSON: '));
  if (!line) {
    console.log('native bench printed no JSON line');
    return null;
  }
  return JSON.parse(line.slice('JSON: '.length));
}

// The native figures of one configuration, wherever the JSON keeps the list.
function nativeConfig(native, B, h) {
  const configs = native?.configs ?? native?.configurations ?? (Array.isArray(native) ? native : []);
  return configs.find((c) => c.blocks === B && c.heads === h) ?? null;
}

const f = (v) => (v === undefined || v === null ? '     -' : v.toFixed(3).padStart(9));

async function main() {
  console.log(`relevance methods, WebAssembly (runtime/core.js) vs native; median of ${RUNS} runs`);
  console.log('native benchmark running…');
  const native = runNative();
  const core = await loadCore();
  const results = {};

  for (const [B, h] of CONFIGS) {
    const tensors = workload(B, h);
    const nat = nativeConfig(native, B, h);
    const up = core.uploadTensors(tensors);
    const row = {};
    console.log(`\nB=${B} h=${h} S=${S}`);
    console.log(`  ${'method'.padEnd(28)} ${'wasm ms'.padStart(9)} ${'native ms'.padStart(9)}`);
    for (const id of core.methodIds) {
      row[id] = medianMs(RUNS, () => core.computeMaps(up, { methods: [id] }));
      console.log(`  ${id.padEnd(28)} ${f(row[id])} ${f(nat?.methods_ms?.[id])}`);
    }
    const batch = medianMs(RUNS, () => core.computeMaps(up));
    const endToEnd = medianMs(Math.max(3, Math.floor(RUNS / 3)), () => core.computeMaps(tensors));
    const upload = medianMs(Math.max(3, Math.floor(RUNS / 3)), () => core.uploadTensors(tensors).free());
    const rowMs = medianMs(RUNS, () => core.relevanceRow('transformer_attribution', up));
    up.free();
    console.log(`  ${'all methods, one batch'.padEnd(28)} ${f(batch)} ${f(nat?.all_methods_batch_ms)}   (tensors already in the heap)`);
    console.log(`  ${'  + copying tensors in'.padEnd(28)} ${f(endToEnd)}    ${''.padStart(6)}   (computeMaps on plain arrays; upload alone ${upload.toFixed(1)} ms)`);
    console.log(`  transformer_attribution row (relevanceRow): ${rowMs.toFixed(3)} ms wasm` +
      (nat ? `; native row vector ${nat.rollout_row_ms.toFixed(3)} ms vs full-matrix ${nat.rollout_full_matrix_ms.toFixed(3)} ms → ×${nat.rollout_speedup.toFixed(1)}` : ''));
    if (nat) {
      console.log(`  product stage alone (same block matrices, native): row vector ${nat.product_row_ms.toFixed(3)} ms,` +
        ` full-matrix ${nat.product_full_matrix_ms.toFixed(3)} ms → ×${nat.product_speedup.toFixed(1)}`);
    }
    results[`${B}x${h}`] = { batch, endToEnd, upload, rowMs, nat };
  }

  const big = results['12x12'];
  console.log('\ntargets');
  reportTarget('core.all-methods-wasm', {
    bench: 'core', label: 'every method of one explanation, B=12 h=12 S=197, WebAssembly', value: big.batch, limit: 20, unit: 'ms',
    detail: `${big.endToEnd.toFixed(1)} ms with the copy into the heap`
      + (big.nat ? `; native ${big.nat.all_methods_batch_ms.toFixed(1)} ms` : ''),
  });
  for (const key of ['12x3', '12x12']) {
    const nat = results[key].nat;
    if (!nat) continue;
    // The rollout itself: the same block matrices chained as a row vector (O(B·S²)) or as
    // full matrices (O(B·S³)).
    const ratio = nat.product_speedup;
    reportTarget(`core.row-rollout.${key}`, {
      bench: 'core', label: `row-vector rollout against the full-matrix product (${key.replace('x', ' blocks, ')} heads, native)`,
      value: ratio, limit: 20, better: 'higher',
    });
    // End to end, both also pay the input checks and the mean over heads of h·S² values per
    // block, the same work either way; at h=12 that shared part dominates both.
    console.log(`    end to end (transformer_attribution from A, G, R, checks included): ×${nat.rollout_speedup.toFixed(1)}`);
  }
}

await main();
