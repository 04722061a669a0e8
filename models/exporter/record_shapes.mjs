// Runs an ONNX graph with onnxruntime-node once per setting with onnxruntime's profiler on:
// the profile (<prefix>…json) names every node's output shapes and element types in every
// run (models/exporter/shapes.py reads it). Native and threaded, and nothing kept beyond
// what one run needs, so a ViT-B/16's graphs are recorded in one run each.
//   node models/exporter/record_shapes.mjs <model.onnx> '<settings JSON>' <profile prefix>
// settings: [{ "<named input axis>": n, "<0-d input>": v, … }, …]. The graph's external-data
// files are read from beside it. Other inputs get a fixed pseudo-random pattern: no shape in
// these graphs depends on their values, only on axes and 0-d switches.
import os from 'node:os';

const ort = await import('onnxruntime-node').then((m) => m.default, (err) => {
  process.stderr.write(`recording shapes needs the optional package onnxruntime-node (npm ci installs it): ${err.message}\n`);
  process.exit(1);
});

const [modelPath, settingsJson, profilePrefix] = process.argv.slice(2);
const session = await ort.InferenceSession.create(modelPath, {
  // the graph's own nodes, unfused, are what the profile must name
  graphOptimizationLevel: 'disabled',
  intraOpNumThreads: os.availableParallelism(),
  enableProfiling: true,
  profileFilePrefix: profilePrefix,
});

const ARRAYS = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array };
function feed(meta, setting) {
  const Array_ = ARRAYS[meta.type];
  if (!Array_) throw new Error(`input ${meta.name} has type ${meta.type}, which record_shapes.mjs cannot fill`);
  const dims = meta.shape.map((d) => {
    if (typeof d === 'number') return d;
    if (!(d in setting)) throw new Error(`input ${meta.name}: no value for its axis ${d}`);
    return setting[d];
  });
  const data = new Array_(dims.reduce((a, b) => a * b, 1));
  if (meta.name in setting) data.fill(meta.type === 'int64' ? BigInt(setting[meta.name]) : setting[meta.name]);
  else for (let i = 0; i < data.length; i += 1) data[i] = meta.type === 'int64' ? BigInt(i % 3) : ((i * 7919) % 1000) / 500 - 1;
  return new ort.Tensor(meta.type, data, dims);
}

for (const setting of JSON.parse(settingsJson)) {
  const feeds = Object.fromEntries(session.inputMetadata.map((m) => [m.name, feed(m, setting)]));
  await session.run(feeds);
}
session.endProfiling();
await session.release();
