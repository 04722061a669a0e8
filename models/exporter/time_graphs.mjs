// Times the plain and explainer graphs in ONE Node process with onnxruntime-web, runs
// interleaved so that machine load hits every variant alike. Prints JSON (ms per run).
//   node models/exporter/time_graphs.mjs <plain.onnx> <explainer.onnx> <H> <W> <C> [rounds] [threads]
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';

const [plainPath, explainerPath, H, W, C, rounds = '7', threads = '2'] = process.argv.slice(2);
ort.env.wasm.numThreads = Number(threads);
const [h, w, c] = [Number(H), Number(W), Number(C)];
const plain = await ort.InferenceSession.create(fs.readFileSync(plainPath));
const explainer = await ort.InferenceSession.create(fs.readFileSync(explainerPath));
const pixels = new ort.Tensor('float32', Float32Array.from({ length: 3 * h * w }, () => Math.random() * 2 - 1), [1, 3, h, w]);
const target = (k) => {
  const t = new Float32Array(k * c);
  for (let i = 0; i < k; i += 1) t[i * c + ((i * 97 + 3) % c)] = 1;
  return new ort.Tensor('float32', t, [k, c]);
};
const cases = {
  plain: () => plain.run({ pixels }),
  explainer_k1: () => explainer.run({ pixels, target: target(1) }),
  explainer_k5: () => explainer.run({ pixels, target: target(5) }),
  explainer_logits_only: () => explainer.run({ pixels, target: target(1) }, ['logits']),
};
const ms = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const run of Object.values(cases)) await run(); // warm-up
for (let r = 0; r < Number(rounds); r += 1) {
  for (const [name, run] of Object.entries(cases)) {
    const t0 = performance.now();
    await run();
    ms[name].push(performance.now() - t0);
  }
}
const stat = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return { min: s[0], median: s[Math.floor(s.length / 2)] };
};
const out = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, stat(v)]));
process.stdout.write(`${JSON.stringify(out)}\n`);
