#!/usr/bin/env node
// Child of matmul-work.js: one profiled run of a graph in onnxruntime-web; the profile goes
// to stdout. Usage: profile-once.js <graph.onnx> <H> <W> <classes> <pixel_relevance> [threads]
// [switches] [weights]. A graph with a `target` input runs K = 1 (one-hot, class 0); the pixels are all
// zero (shapes, not values, decide the work). switches: the optional outputs' switch inputs
// (attnlrp_relevance, …) set to 1, comma-separated; the others the graph has are fed 0.
// weights: the external weights file the graph reads (split and method family graphs).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { OPTIONAL_OUTPUTS } from '../runtime/metadata.js';

const [model, ...rest] = process.argv.slice(2);
const [H, W, C, pixelRelevance, threads] = rest.slice(0, 5).map(Number);
const on = (rest[5] ?? '').split(',');
if (threads) ort.env.wasm.numThreads = threads;
const weights = rest[6];
const externalData = weights ? [{ path: path.basename(weights), data: readFileSync(weights) }] : undefined;
const session = await ort.InferenceSession.create(readFileSync(model), { enableProfiling: true, externalData });
const feeds = { pixels: new ort.Tensor('float32', new Float32Array(3 * H * W), [1, 3, H, W]) };
if (session.inputNames.includes('target')) {
  const target = new Float32Array(C);
  target[0] = 1;
  feeds.target = new ort.Tensor('float32', target, [1, C]);
  if (session.inputNames.includes('pixel_relevance')) feeds.pixel_relevance = new ort.Tensor('float32', new Float32Array([pixelRelevance]), []);
  for (const { input } of Object.values(OPTIONAL_OUTPUTS)) {
    if (session.inputNames.includes(input)) feeds[input] = new ort.Tensor('float32', new Float32Array([on.includes(input) ? 1 : 0]), []);
  }
}
await session.run(feeds);
session.endProfiling();
await session.release();
