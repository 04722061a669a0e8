// Runs a split explainer (models/exporter/split_export.py) with onnxruntime-web: the photo
// graph on pixels, then the class graph on its cache plus the target rows and the switches,
// both mounting the shared weights file. Writes the class graph's outputs (and logits,
// attn) as <out>/<name>.npy.
//
//   node tests/models/run_split.mjs --photo p.onnx --class-graph t.onnx --weights w.bin --out dir \
//        --input pixels=a.npy --input target=t.npy --input pixel_relevance=r.npy \
//        [--input attnlrp_relevance=a.npy --input cp_lrp_relevance=c.npy]   (absent: 0)
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

const args = { inputs: {} };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i += 2) {
  const [key, value] = [argv[i], argv[i + 1]];
  if (key === '--input') {
    const eq = value.indexOf('=');
    args.inputs[value.slice(0, eq)] = value.slice(eq + 1);
  } else args[key.slice(2)] = value;
}

function readNpy(file) {
  const buf = fs.readFileSync(file);
  const headerLen = buf.readUInt16LE(8);
  const header = buf.toString('latin1', 10, 10 + headerLen);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  new Uint8Array(data.buffer).set(buf.subarray(10 + headerLen, 10 + headerLen + count * 4));
  return new ort.Tensor('float32', data, shape);
}

function writeNpy(file, tensor) {
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), Buffer.from(d.buffer, d.byteOffset, d.byteLength)]));
}

ort.env.wasm.numThreads = 2;
const externalData = [{ path: path.basename(args.weights), data: fs.readFileSync(args.weights) }];
const photo = await ort.InferenceSession.create(fs.readFileSync(args.photo), { externalData });
const classGraph = await ort.InferenceSession.create(fs.readFileSync(args['class-graph']), { externalData });
const feeds = Object.fromEntries(Object.entries(args.inputs).map(([k, f]) => [k, readNpy(f)]));
const cache = await photo.run({ pixels: feeds.pixels });
const off = new ort.Tensor('float32', new Float32Array([0]), []);
const classFeeds = { target: feeds.target, pixel_relevance: feeds.pixel_relevance };
for (const name of ['attnlrp_relevance', 'cp_lrp_relevance']) classFeeds[name] = feeds[name] ?? off;
for (const name of classGraph.inputNames) if (!(name in classFeeds)) classFeeds[name] = cache[name];
const out = await classGraph.run(classFeeds);
fs.mkdirSync(args.out, { recursive: true });
for (const name of ['logits', 'attn']) writeNpy(path.join(args.out, `${name}.npy`), cache[name]);
for (const name of classGraph.outputNames) writeNpy(path.join(args.out, `${name}.npy`), out[name]);
process.stdout.write(`${JSON.stringify({ cache: classGraph.inputNames.length - 6 })}\n`);
