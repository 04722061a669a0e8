#!/usr/bin/env node
// Child of matmul-work.js: one profiled run of an attribution graph of one block
// (models/exporter/attribution.py) in onnxruntime-web; the profile goes to stdout.
// Usage: profile-attribution.js <attr<b>.onnx> <weights.bin> <S> <D> <classes> <copies> [threads]
// Zero hidden state, `copies` α values, target class 0: shapes, not values, decide the work.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

const [model, weights, ...rest] = process.argv.slice(2);
const [S, D, C, copies, threads] = rest.map(Number);
if (threads) ort.env.wasm.numThreads = threads;
const session = await ort.InferenceSession.create(readFileSync(model), {
  enableProfiling: true, externalData: [{ path: path.basename(weights), data: readFileSync(weights) }],
});
const target = new Float32Array(C);
target[0] = 1;
await session.run({
  hidden: new ort.Tensor('float32', new Float32Array(S * D), [S, D]),
  alpha: new ort.Tensor('float32', Float32Array.from({ length: copies }, (_, i) => i / copies), [copies]),
  target: new ort.Tensor('float32', target, [C]),
});
session.endProfiling();
await session.release();
