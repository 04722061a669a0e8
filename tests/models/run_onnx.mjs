// Runs an .onnx file with onnxruntime-web (the WebAssembly engine the page uses) on .npy
// inputs (float32, or int64 token ids) and writes each fetched output as <out>/<name>.npy (float32).
//
//   node tests/models/run_onnx.mjs --model m.onnx --out dir --input pixels=a.npy \
//        --input target=t.npy [--fetch logits,attn] [--threads 2] [--repeat N] [--weights w.bin]
//
// --repeat N times N extra runs after a warm-up and prints {"ms": [...]} on stdout; the
// outputs written are those of the last run. --weights mounts the file the graph's
// external-data initializers name. Self-contained on purpose (no runtime/ code),
// so the exporter tests depend on nothing but the installed onnxruntime-web.
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';

function parseArgs(argv) {
  const args = { inputs: {}, fetch: null, threads: 2, repeat: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value after ${key}`);
    if (key === '--model') args.model = value;
    else if (key === '--out') args.out = value;
    else if (key === '--input') {
      const eq = value.indexOf('=');
      args.inputs[value.slice(0, eq)] = value.slice(eq + 1);
    } else if (key === '--fetch') args.fetch = value.split(',').filter(Boolean);
    else if (key === '--threads') args.threads = Number(value);
    else if (key === '--repeat') args.repeat = Number(value);
    else if (key === '--weights') args.weights = value;
    else throw new Error(`unknown option ${key}`);
  }
  if (!args.model) throw new Error('--model is required');
  return args;
}

// Minimal .npy (format 1.0/2.0/3.0) reader/writer for little-endian float32, C order.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const start = (major === 1 ? 10 : 12) + headerLen;
  const header = buf.toString('latin1', major === 1 ? 10 : 12, start);
  const int64 = /'descr':\s*'<i8'/.test(header); // token ids
  if (!int64 && !/'descr':\s*'<f4'/.test(header)) throw new Error(`${file}: only float32 ('<f4') and int64 ('<i8') are supported`);
  if (/'fortran_order':\s*True/.test(header)) throw new Error(`${file}: Fortran order not supported`);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map((s) => s.trim())
    .filter(Boolean).map(Number);
  const count = shape.reduce((a, b) => a * b, 1);
  const data = int64 ? new BigInt64Array(count) : new Float32Array(count);
  new Uint8Array(data.buffer).set(buf.subarray(start, start + data.byteLength));
  return new ort.Tensor(int64 ? 'int64' : 'float32', data, shape);
}

function writeNpy(file, tensor) {
  const shape = tensor.dims.length === 1 ? `(${tensor.dims[0]},)` : `(${tensor.dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const data = tensor.data;
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'),
    Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

const args = parseArgs(process.argv.slice(2));
ort.env.wasm.numThreads = args.threads;
// Node 20 has fetch(), which rejects file paths: hand the model over as bytes.
const externalData = args.weights
  ? [{ path: path.basename(args.weights), data: fs.readFileSync(args.weights) }] : undefined;
const session = await ort.InferenceSession.create(fs.readFileSync(args.model), { externalData });
const feeds = {};
for (const [name, file] of Object.entries(args.inputs)) feeds[name] = readNpy(file);
const fetches = args.fetch ?? session.outputNames;

let results = await session.run(feeds, fetches);
const ms = [];
for (let i = 0; i < args.repeat; i += 1) {
  const t0 = performance.now();
  results = await session.run(feeds, fetches);
  ms.push(performance.now() - t0);
}
if (args.out) {
  fs.mkdirSync(args.out, { recursive: true });
  for (const name of fetches) writeNpy(path.join(args.out, `${name}.npy`), results[name]);
}
process.stdout.write(`${JSON.stringify({ outputs: fetches, ms })}\n`);
await session.release();
