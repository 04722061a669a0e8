// How much matrix-product work one run of a graph does, counted from onnxruntime's own
// profile of that run (exact shapes, so exact counts). The explain bench sets it beside the
// measured times: the products are most of both graphs' time, so the ratio of their
// multiply-accumulates (MACs) is the floor of the ratio of their times in one runtime.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PRODUCT_OPS = new Set(['MatMul', 'FusedMatMul', 'Gemm', 'Conv']);

const shapeOf = (entry) => (entry ? Object.values(entry)[0] : undefined);
const product = (dims) => dims.reduce((a, b) => a * b, 1);

// MACs of one product node from its profiled input and output shapes. The profile does not
// carry transA/transB, so the inner dimension is A's dim that is not the output's rows.
export function productMacs(op, inputShapes, outputShape) {
  if (op === 'Conv') {
    const w = inputShapes[1]; // [Cout, Cin/group, kh, kw]: every output sums Cin/group·kh·kw terms
    return product(outputShape) * product(w.slice(1));
  }
  const a = inputShapes[0];
  if (a.length === 1) return product(outputShape) * a[0];
  const rows = outputShape[outputShape.length - 2];
  const inner = a[a.length - 2] === rows ? a[a.length - 1] : a[a.length - 2];
  return product(outputShape) * inner;
}

// profileText: what onnxruntime prints at endProfiling (a JSON array of trace events).
// Returns the MACs and summed kernel time of the products in the LAST model run.
export function matmulWorkFromProfile(profileText) {
  const start = profileText.indexOf('[');
  const end = profileText.lastIndexOf(']');
  if (start < 0 || end < start) throw new Error('no onnxruntime profile (JSON array) in the text');
  const events = JSON.parse(profileText.slice(start, end + 1));
  const runs = events.filter((e) => e.name === 'model_run');
  if (!runs.length) throw new Error('the profile holds no model_run');
  const run = runs[runs.length - 1];
  let macs = 0;
  let kernelMs = 0;
  let nodes = 0;
  for (const e of events) {
    const op = e.args?.op_name;
    if (e.cat !== 'Node' || !PRODUCT_OPS.has(op) || e.ts < run.ts || e.ts > run.ts + run.dur) continue;
    const inputs = (e.args.input_type_shape ?? []).map(shapeOf);
    const output = shapeOf(e.args.output_type_shape?.[0]);
    if (!inputs.length || !output) continue;
    macs += productMacs(op, inputs, output);
    kernelMs += e.dur / 1000;
    nodes++;
  }
  return { macs, kernelMs, nodes };
}

// Profiles one run of `model` in a child process (onnxruntime-web prints its profile on the
// process's stdout, so it gets a process of its own). An explainer graph runs K = 1 target
// with the given pixel_relevance and the optional outputs' switches named in `switches` on
// (e.g. ['attnlrp_relevance']), the others off; a plain forward graph ignores them all.
// weights: the external weights file of a graph that has one.
export function profiledMatmulWork(model, { imageSize: [H, W], classes, pixelRelevance = 1, threads = 0, switches = [], weights }) {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'profile-once.js');
  const args = [child, model, H, W, classes, pixelRelevance, threads, switches.join(','), ...(weights ? [weights] : [])].map(String);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`profiling ${path.basename(model)} failed: ${r.stderr.trim().split('\n').pop()}`);
  return matmulWorkFromProfile(r.stdout);
}

// The same count for one run of an attribution graph (profile-attribution.js): the states
// graph, or a block's graph on `copies` α values at once.
export function profiledAttributionWork(model, weights, { imageSize: [H, W], tokens, dim, classes, copies = 1, threads = 0 }) {
  const child = path.join(path.dirname(fileURLToPath(import.meta.url)), 'profile-attribution.js');
  const args = [child, model, weights, H, W, tokens, dim, classes, copies, threads].map(String);
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`profiling ${path.basename(model)} failed: ${r.stderr.trim().split('\n').pop()}`);
  return matmulWorkFromProfile(r.stdout);
}

// The fewest MACs AttnLRP's or CP-LRP's modified backward pass needs for one target
// (METHODS.md: one forward, then one backward forming input gradients only), from the
// metadata's architecture: per block, the Linear layers' input gradients on the rows that
// carry gradient (the last block: the head's rows), the attention's (AttnLRP: Aᵀg_O, g_O Vᵀ,
// g_Z K, g_Zᵀ Q; CP-LRP: Aᵀg_O alone) and qkv's (CP-LRP: its v third); then the patch
// embedding's. The seed (one row of the head) counts D·C, as the textbook forward's head.
export function modifiedBackwardMacs(arch, method) {
  const { embed_dim: D, tokens: S, heads: h, patch_size: p, blocks: B, num_classes: C, mlp_ratio } = arch;
  const N = S - arch.special_tokens;
  const d = D / h;
  const M = mlp_ratio * D;
  const headRows = arch.distilled ? 2 : 1;
  let macs = D * C * headRows + N * D * 3 * p * p;
  for (let b = 0; b < B; b++) {
    const r = b === B - 1 ? headRows : S;
    macs += 2 * r * D * M + r * D * D;
    macs += method === 'attnlrp' ? 4 * h * r * S * d + S * 3 * D * D : h * r * S * d + S * D * D;
  }
  return macs;
}
