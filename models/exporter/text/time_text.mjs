// Times a text model's graphs in ONE Node process with onnxruntime-web: each session's
// opening (median of `rounds`), then runs interleaved (machine load hits every case alike) of the plain forward
// and the explainer (K = 1; the three switches all 0, or all 1) at 32 and 512 tokens (or
// the lengths given). With a reference .onnx (e.g. DeiT-tiny's explainer), its opening is
// timed in the same process, for a ratio. Prints JSON (ms).
//   node models/exporter/text/time_text.mjs <explainer.onnx> <forward.onnx> [rounds] [threads] [lengths] [reference.onnx]
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';
import { timeInterleaved } from '../interleaved.mjs';

const [explainerPath, forwardPath, rounds = '3', threads = '2', lengths = '32,512', referencePath] = process.argv.slice(2);
ort.env.wasm.numThreads = Number(threads);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// a session's opening, the median of `rounds` (the first session of a process also pays
// for instantiating the WebAssembly engine: a warm-up opening comes first)
const open = async (file) => {
  const bytes = fs.readFileSync(file);
  const times = [];
  let session;
  for (let r = 0; r < Number(rounds); r += 1) {
    if (session) await session.release();
    const t0 = performance.now();
    session = await ort.InferenceSession.create(bytes);
    times.push(performance.now() - t0);
  }
  return [session, median(times)];
};
await (await ort.InferenceSession.create(fs.readFileSync(forwardPath))).release();
const [explainer, openExplainer] = await open(explainerPath);
const [forward, openForward] = await open(forwardPath);
const openMs = { explainer: openExplainer, forward: openForward };
if (referencePath) openMs.reference = (await open(referencePath))[1];
const classes = 2;
const flag = (v) => new ort.Tensor('float32', Float32Array.of(v), []);
const ids = (n) => new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(1000 + ((i * 7919) % 20000))), [1, n]);
const cases = {};
for (const n of lengths.split(',').map(Number)) {
  cases[`forward_${n}`] = () => forward.run({ input_ids: ids(n) });
  for (const v of [0, 1]) {
    cases[`explain_${n}_switches${v}`] = () => explainer.run({
      input_ids: ids(n), target: new ort.Tensor('float32', new Float32Array(classes), [1, classes]),
      token_relevance: flag(v), attnlrp_relevance: flag(v), cp_lrp_relevance: flag(v),
    });
  }
}
const runs = await timeInterleaved(cases, rounds);
console.log(JSON.stringify({ open: openMs, runs }, null, 1));
