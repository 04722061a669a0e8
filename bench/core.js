// `npm run bench -- core`: the relevance methods in WebAssembly (through runtime/core.js,
// as the page and the CLI run them) and natively (bench/native/relevance_bench), on the
// same random workload, all measured in this one run; plus the row-vector rollout against
// the full-matrix product. Prints figures and the target checks; never fails on speed.
//   VITREL_BENCH_RUNS  runs per figure (median; default 25)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCore } from '../runtime/core.js';

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
    attnGrad: { data: uniform(n, 2, 2, -1), shape },
    attnRel: { data: uniform(n, 3, 2, -1), shape },
    relClassicLast: { data: uniform(h * S * S, 4, 2, -1), shape: [h, S, S] },
    inputRelClassic: { data: uniform(224 * 224, 5, 2, -1), shape: [224, 224] },
    attr: { data: uniform(n, 6, 2, -1), shape },
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
    const fullRuns = Math.max(3, Math.floor(RUNS / 5));
    const fullMs = medianMs(fullRuns, () => core.rolloutFullMatrix('transformer_attribution', up));
    // The product stage alone, on the same block matrices both ways: the mean over heads
    // of the uploaded attention plus I, each row normalised (a valid rollout operand).
    const T = tensors.attn.shape[2];
    const blockData = new Float32Array(B * T * T);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < T; i++) {
        let sum = 0;
        for (let j = 0; j < T; j++) {
          let v = i === j ? 1 : 0;
          for (let k = 0; k < h; k++) v += tensors.attn.data[((b * h + k) * T + i) * T + j] / h;
          blockData[(b * T + i) * T + j] = v;
          sum += v;
        }
        for (let j = 0; j < T; j++) blockData[(b * T + i) * T + j] /= sum;
      }
    }
    const blocks = core.uploadBlocks({ data: blockData, shape: [B, T, T] });
    const chainRowMs = medianMs(RUNS, () => core.rolloutChain(blocks));
    const chainFullMs = medianMs(fullRuns, () => core.rolloutChain(blocks, { fullMatrices: true }));
    blocks.delete();
    up.free();
    console.log(`  ${'all methods, one batch'.padEnd(28)} ${f(batch)} ${f(nat?.all_methods_batch_ms)}   (tensors already in the heap)`);
    console.log(`  ${'  + copying tensors in'.padEnd(28)} ${f(endToEnd)}    ${''.padStart(6)}   (computeMaps on plain arrays; upload alone ${upload.toFixed(1)} ms)`);
    console.log(`  transformer_attribution rollout: row vector ${rowMs.toFixed(3)} ms, full-matrix ${fullMs.toFixed(3)} ms → ×${(fullMs / rowMs).toFixed(1)} (wasm)` +
      (nat ? `; native ×${nat.rollout_speedup.toFixed(1)} (${nat.rollout_row_ms.toFixed(3)} vs ${nat.rollout_full_matrix_ms.toFixed(3)} ms)` : ''));
    console.log(`  product stage alone (same block matrices): row vector ${chainRowMs.toFixed(3)} ms, full-matrix ${chainFullMs.toFixed(3)} ms → ×${(chainFullMs / chainRowMs).toFixed(1)} (wasm)` +
      (nat?.product_speedup ? `; native ×${nat.product_speedup.toFixed(1)}` : ''));
    results[`${B}x${h}`] = { batch, endToEnd, upload, rowMs, fullMs, chainRowMs, chainFullMs, nat };
  }

  const big = results['12x12'];
  console.log('\ntargets');
  console.log(`  all methods B=12 h=12 S=197 in WASM: ${big.batch.toFixed(1)} ms (target ≤ 20 ms)` +
    ` ${big.batch <= 20 ? 'met' : 'NOT met'}; ${big.endToEnd.toFixed(1)} ms including the copy of the tensors into the heap` +
    (big.nat ? `; native ${big.nat.all_methods_batch_ms.toFixed(1)} ms, WASM/native ×${(big.batch / big.nat.all_methods_batch_ms).toFixed(2)}` : ''));
  for (const key of ['12x3', '12x12']) {
    const r = results[key];
    // The rollout itself: the same block matrices chained as a row vector (O(B·S²)) or as
    // full matrices (O(B·S³)).
    const ratio = r.chainFullMs / r.chainRowMs;
    console.log(`  row-vector rollout vs full-matrix product (${key.replace('x', ' blocks, ')} heads, WASM): ${ratio.toFixed(1)}× (target ≥ 20×)` +
      ` ${ratio >= 20 ? 'met' : 'NOT met'}` + (r.nat?.product_speedup ? `; native ${r.nat.product_speedup.toFixed(1)}×` : ''));
    // End to end, both also pay the input checks and the mean over heads of h·S² values per
    // block, the same work either way; at h=12 that shared part dominates both.
    console.log(`    end to end (transformer_attribution from A, G, R, checks included): ×${(r.fullMs / r.rowMs).toFixed(1)}` +
      (r.nat ? `; native ×${r.nat.rollout_speedup.toFixed(1)}` : ''));
  }
}

await main();
