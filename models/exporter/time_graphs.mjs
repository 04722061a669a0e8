// Times the plain and explainer graphs in ONE Node process with onnxruntime-web, runs
// interleaved so that machine load hits every case alike. Prints JSON (ms per run).
//   node models/exporter/time_graphs.mjs <plain.onnx> <explainer.onnx> <H> <W> <C> [rounds] [threads] [baseline.onnx]
// Cases: plain forward; explainer with K = 1 and 5, pixel_relevance 0 and 1; with
// baseline.onnx (an earlier explainer without the pixel_relevance input), K = 1 on it too.
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';
import { timeInterleaved } from './interleaved.mjs';

const [plainPath, explainerPath, H, W, C, rounds = '7', threads = '2', baselinePath] = process.argv.slice(2);
ort.env.wasm.numThreads = Number(threads);
const [h, w, c] = [Number(H), Number(W), Number(C)];
const plain = await ort.InferenceSession.create(fs.readFileSync(plainPath));
const explainer = await ort.InferenceSession.create(fs.readFileSync(explainerPath));
const baseline = baselinePath ? await ort.InferenceSession.create(fs.readFileSync(baselinePath)) : null;
const pixels = new ort.Tensor('float32', Float32Array.from({ length: 3 * h * w }, () => Math.random() * 2 - 1), [1, 3, h, w]);
const target = (k) => {
  const t = new Float32Array(k * c);
  for (let i = 0; i < k; i += 1) t[i * c + ((i * 97 + 3) % c)] = 1;
  return new ort.Tensor('float32', t, [k, c]);
};
const flag = (v) => new ort.Tensor('float32', Float32Array.of(v), []);
// the AttnLRP/CP-LRP switches (absent from older graphs) off: the cases time the rest
const others = Object.fromEntries(['attnlrp_relevance', 'cp_lrp_relevance']
  .filter((n) => explainer.inputNames.includes(n)).map((n) => [n, flag(0)]));
const explain = (k, v) => () => explainer.run({ pixels, target: target(k), pixel_relevance: flag(v), ...others });
const cases = {
  plain: () => plain.run({ pixels }),
  k1_flag0: explain(1, 0),
  k1_flag1: explain(1, 1),
  k5_flag0: explain(5, 0),
  k5_flag1: explain(5, 1),
};
if (baseline) cases.baseline_k1 = () => baseline.run({ pixels, target: target(1) });
const out = await timeInterleaved(cases, rounds);
process.stdout.write(`${JSON.stringify(out)}\n`);
