// Runs a text explainer graph with onnxruntime-web (the engine the page and the CLI use)
// for the export's parity check (parity.py): the token ids of several texts, one after
// the other, in a raw int64 file, with their lengths (comma-separated); target rows all
// zeros, every switch 0; writes the logits of each text, in order, as raw float32 to <out>.
//   node models/exporter/text/run_logits.mjs <model.onnx> <ids.i64> <lengths> <classes> <out>
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';

const [model, idsFile, lengths, classes, out] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(fs.readFileSync(model));
const bytes = fs.readFileSync(idsFile);
const ids = new BigInt64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
const off = () => new ort.Tensor('float32', new Float32Array([0]), []);
const all = [];
let start = 0;
for (const n of lengths.split(',').map(Number)) {
  const { logits } = await session.run({
    input_ids: new ort.Tensor('int64', ids.slice(start, start + n), [1, n]),
    target: new ort.Tensor('float32', new Float32Array(Number(classes)), [1, Number(classes)]),
    token_relevance: off(),
    attnlrp_relevance: off(),
    cp_lrp_relevance: off(),
  }, ['logits']);
  start += n;
  all.push(Buffer.from(logits.data.buffer, logits.data.byteOffset, logits.data.byteLength));
}
fs.writeFileSync(out, Buffer.concat(all));
