// Runs an ONNX graph with onnxruntime-web once per setting and prints, as one JSON line, the
// shape and element type of every output in every run (models/exporter/shapes.py makes every
// intermediate value an output first).
//   node models/exporter/record_shapes.mjs <model.onnx> '<settings JSON>' [location=file ...]
// settings: [{ "<named input axis>": n, "<0-d input>": v, … }, …]; location=file mounts the
// external-data file a graph's initializers name. Other inputs get a fixed pseudo-random
// pattern: no shape in these graphs depends on their values, only on axes and 0-d switches.
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';

const [modelPath, settingsJson, ...mounts] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const externalData = mounts.map((m) => {
  const eq = m.indexOf('=');
  return { path: m.slice(0, eq), data: fs.readFileSync(m.slice(eq + 1)) };
});
const session = await ort.InferenceSession.create(fs.readFileSync(modelPath), { externalData });

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

const runs = [];
for (const setting of JSON.parse(settingsJson)) {
  const feeds = Object.fromEntries(session.inputMetadata.map((m) => [m.name, feed(m, setting)]));
  const outputs = await session.run(feeds);
  runs.push(Object.fromEntries(Object.entries(outputs).map(([name, t]) => {
    const shape = { dims: t.dims, type: t.type };
    t.dispose();
    return [name, shape];
  })));
}
await session.release();
process.stdout.write(`${JSON.stringify(runs)}\n`);
