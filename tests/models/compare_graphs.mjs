// Runs two ONNX graphs with the same inputs and names their outputs that differ in any bit:
// a graph against the same graph built from cleaned pieces (models/exporter/graph_cleanup.py).
//
//   node tests/models/compare_graphs.mjs --a a.onnx --b b.onnx [--weights w.bin [--weights-b w2.bin]]
//        [--levels disabled,basic,all] --cases '[{"K": 3, "switches": {"pixel_relevance": 0}, "seed": 11}, ...]'
//
// Each pair of sessions is opened at each of onnxruntime's graph optimisation `levels` (the
// page opens the forward graph at disabled, the family graphs at basic, the CLI the others
// at all). Every input is made from its metadata: named axes take K; a 0-d input is a run-time
// switch and takes its value in `switches` (1 when absent); `target` rows are normal random numbers with row 1 all zero (a
// predicted-class row) when K > 1; every other input is normal random numbers (seeded).
// Prints {"outputs": [...], "differing": [{level, case, name, maxAbs}]} on stdout.
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

const args = {};
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) args[argv[i].slice(2)] = argv[i + 1];

// mulberry32 and Box-Muller: a small seeded normal generator
function normals(seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

// The symbolic axes that are not K: the default family graph's denominators, formed on a
// photo's first run (F, one row) and none given (G).
const AXES = { F: 1, G: 0 };

function feedsFor(session, { K, switches = {}, seed }) {
  const next = normals(seed);
  const feeds = {};
  for (const meta of session.inputMetadata) {
    const dims = meta.shape.map((d) => (typeof d === 'number' ? d : AXES[d] ?? K));
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
    if (dims.length === 0) data[0] = switches[meta.name] ?? 1;
    else if (meta.name === 'inverse_rows') data.fill(1);
    else data.forEach((_, i) => { data[i] = next(); });
    if (meta.name === 'target' && K > 1) data.fill(0, dims[1], 2 * dims[1]);
    feeds[meta.name] = new ort.Tensor('float32', data, dims);
  }
  return feeds;
}

ort.env.wasm.numThreads = 2;
// --weights-b: graph b's own weights file (default: --weights)
const external = (file) => (file ? [{ path: path.basename(file), data: fs.readFileSync(file) }] : undefined);
const [externalA, externalB] = [external(args.weights), external(args['weights-b'] ?? args.weights)];
const differing = [];
let outputs;
for (const level of (args.levels ?? 'basic').split(',')) {
  const open = (file, externalData) => ort.InferenceSession.create(fs.readFileSync(file), { externalData, graphOptimizationLevel: level });
  const [a, b] = [await open(args.a, externalA), await open(args.b, externalB)];
  outputs = a.outputNames;
  for (const c of JSON.parse(args.cases)) differing.push(...await compare(a, b, c, level));
}
process.stdout.write(`${JSON.stringify({ outputs, differing })}\n`);

async function compare(a, b, c, level) {
  const differing = [];
  const [outA, outB] = [await a.run(feedsFor(a, c)), await b.run(feedsFor(b, c))];
  for (const name of a.outputNames) {
    const [x, y] = [outA[name], outB[name]];
    const same = x.dims.join() === y.dims.join() && x.type === y.type
      && Buffer.compare(Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength),
        Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength)) === 0;
    if (!same) {
      let maxAbs = x.dims.join() === y.dims.join() ? 0 : Infinity;
      if (maxAbs === 0) x.data.forEach((v, i) => { maxAbs = Math.max(maxAbs, Math.abs(Number(v) - Number(y.data[i]))); });
      differing.push({ level, case: c, name, maxAbs });
    }
  }
  return differing;
}
