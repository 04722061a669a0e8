#!/usr/bin/env node
// Child of matmul-work.js: one profiled run of a graph in onnxruntime-web; the profile goes
// to stdout. Usage: profile-once.js <graph.onnx> <H> <W> <classes> <pixel_relevance> [threads]
//   [attnlrp_relevance cp_lrp_relevance]   (0 when absent; fed only to a graph that has them)
// A graph with a `target` input runs K = 1 (one-hot, class 0); the pixels are all zero
// (shapes, not values, decide the work).
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';

const [model, ...rest] = process.argv.slice(2);
const [H, W, C, pixelRelevance, threads, attnlrp = 0, cpLrp = 0] = rest.map(Number);
if (threads) ort.env.wasm.numThreads = threads;
const session = await ort.InferenceSession.create(readFileSync(model), { enableProfiling: true });
const feeds = { pixels: new ort.Tensor('float32', new Float32Array(3 * H * W), [1, 3, H, W]) };
if (session.inputNames.includes('target')) {
  const target = new Float32Array(C);
  target[0] = 1;
  feeds.target = new ort.Tensor('float32', target, [1, C]);
  const switches = { pixel_relevance: pixelRelevance, attnlrp_relevance: attnlrp, cp_lrp_relevance: cpLrp };
  for (const [name, v] of Object.entries(switches)) {
    if (session.inputNames.includes(name)) feeds[name] = new ort.Tensor('float32', new Float32Array([v]), []);
  }
}
await session.run(feeds);
session.endProfiling();
await session.release();
