// The export's check of a text model's family graphs (families.py) against its explainer
// graph, all reading the shared weights file beside them, with onnxruntime-web (the engine
// the page and the CLI use, with the runtime's session options): a fixed text of `tokens` ids (spread over the vocabulary), the predicted class and one other
// row as targets, every switch 1; for each family and each of its outputs, the largest
// absolute difference from the explainer's, over the explainer's largest absolute value.
// Prints JSON { family: { output: relative difference } }.
//   node models/exporter/text/family_parity.mjs <folder> <name> <weights> <classes> <vocab size> <tokens> <family>...
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { CPU_SESSION, TEXT_FAMILY_SESSION } from '../../../runtime/session-options.js';

const [dir, name, weights, classes, vocab, tokens, ...families] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const externalData = [{ path: weights, data: fs.readFileSync(path.join(dir, weights)) }];
// the explainer with the runtime's options for it, a family with a family's
const open = (file, family = {}) => ort.InferenceSession.create(fs.readFileSync(path.join(dir, file)), { ...CPU_SESSION, ...family, externalData });
const C = Number(classes);
const n = Number(tokens);
const target = new Float32Array(2 * C);
target[C + (C > 1 ? 1 : 0)] = 1; // row 0: the predicted class; row 1: class 1
const feeds = (session) => Object.fromEntries(session.inputNames.map((input) => [input,
  input === 'input_ids' ? new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt((i * 7919) % Number(vocab))), [1, n])
    : input === 'target' ? new ort.Tensor('float32', target, [2, C]) : new ort.Tensor('float32', Float32Array.of(1), [])]));
const explainer = await open(`${name}.onnx`);
const want = await explainer.run(feeds(explainer));
const report = {};
for (const family of families) {
  const session = await open(`${name}.${family}.onnx`, TEXT_FAMILY_SESSION);
  const got = await session.run(feeds(session));
  report[family] = Object.fromEntries(session.outputNames.map((o) => {
    const a = got[o].data;
    const b = want[o].data;
    if (a.length !== b.length) return [o, Infinity];
    let diff = 0;
    let scale = 0;
    for (let i = 0; i < a.length; i += 1) {
      diff = Math.max(diff, Math.abs(a[i] - b[i]));
      scale = Math.max(scale, Math.abs(b[i]));
    }
    return [o, scale > 0 ? diff / scale : diff];
  }));
  await session.release();
}
console.log(JSON.stringify(report));
