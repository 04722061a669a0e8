#!/usr/bin/env node
// Child of matmul-work.js: one profiled run of an attribution graph
// (models/exporter/attribution.py) in onnxruntime-web; the profile goes to stdout.
// Usage: profile-attribution.js <graph.onnx> <weights.bin> <H> <W> <S> <D> <classes> <copies> [threads]
// The states graph gets zero pixels; a block's graph a zero hidden state, `copies` α values
// and target class 0: shapes, not values, decide the work.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

const [model, weights, ...rest] = process.argv.slice(2);
const [H, W, S, D, C, copies, threads] = rest.map(Number);
if (threads) ort.env.wasm.numThreads = threads;
const session = await ort.InferenceSession.create(readFileSync(model), {
  enableProfiling: true, externalData: [{ path: path.basename(weights), data: readFileSync(weights) }],
});
const target = new Float32Array(C);
target[0] = 1;
await session.run(session.inputNames.includes('pixels')
  ? { pixels: new ort.Tensor('float32', new Float32Array(3 * H * W), [1, 3, H, W]) }
  : {
    hidden: new ort.Tensor('float32', new Float32Array(S * D), [S, D]),
    alpha: new ort.Tensor('float32', Float32Array.from({ length: copies }, (_, i) => i / copies), [copies]),
    target: new ort.Tensor('float32', target, [C]),
  });
session.endProfiling();
await session.release();
