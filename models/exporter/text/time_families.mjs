// Times a text model's graphs over one shared weights file (the exporter's <name>.onnx,
// <name>.forward.onnx and <name>.<family>.onnx beside <name>.weights.bin) in ONE Node
// process with onnxruntime-web: each session's opening (median of `rounds`), then each
// graph's run interleaved (machine load hits every case alike) at the lengths given, K = 1,
// every switch the graph has set to 1. Prints JSON (ms).
//   node models/exporter/text/time_families.mjs <folder> <name> [rounds] [threads] [lengths]
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { timeInterleaved } from '../interleaved.mjs';

const [dir, name, rounds = '3', threads = '2', lengths = '32,512'] = process.argv.slice(2);
ort.env.wasm.numThreads = Number(threads);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const weights = `${name}.weights.bin`;
const externalData = [{ path: weights, data: fs.readFileSync(path.join(dir, weights)) }];
const graphs = Object.fromEntries(fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.`) && f.endsWith('.onnx'))
  .map((f) => [f.slice(name.length + 1, -'.onnx'.length) || 'explainer', fs.readFileSync(path.join(dir, f))]));
const open = async (bytes) => {
  const times = [];
  let session;
  for (let r = 0; r < Number(rounds); r += 1) {
    if (session) await session.release();
    const t0 = performance.now();
    session = await ort.InferenceSession.create(bytes, { externalData });
    times.push(performance.now() - t0);
  }
  return [session, median(times)];
};
// the engine's warm-up: the first openings in a process pay for compiling its code paths
for (const bytes of Object.values(graphs)) await (await ort.InferenceSession.create(bytes, { externalData })).release();
const sessions = {};
const openMs = {};
for (const [graph, bytes] of Object.entries(graphs)) [sessions[graph], openMs[graph]] = await open(bytes);
const flag = (v) => new ort.Tensor('float32', Float32Array.of(v), []);
const ids = (n) => new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(1000 + ((i * 7919) % 20000))), [1, n]);
const feeds = (session, n) => Object.fromEntries(session.inputNames.map((input) => [input,
  input === 'input_ids' ? ids(n) : input === 'target' ? new ort.Tensor('float32', new Float32Array(2), [1, 2]) : flag(1)]));
const cases = {};
for (const n of lengths.split(',').map(Number)) {
  for (const [graph, session] of Object.entries(sessions)) cases[`${graph}_${n}`] = () => session.run(feeds(session, n));
}
const runs = await timeInterleaved(cases, rounds);
console.log(JSON.stringify({ open: openMs, runs }, null, 1));
