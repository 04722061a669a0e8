// Runs an explainer graph once with onnxruntime-web (the engine the page and the CLI use)
// for the export's parity check (models/exporter/parity.py): the pixels are a raw float32
// file, the target row all zeros (the predicted class), every switch (pixel_relevance,
// attnlrp_relevance, cp_lrp_relevance) 0; writes the logits as raw float32 to <out>.
//   node models/exporter/run_logits.mjs <model.onnx> <pixels.f32> <h> <w> <classes> <out>
import fs from 'node:fs';
import * as ort from 'onnxruntime-web';

const [model, pixelsFile, h, w, classes, out] = process.argv.slice(2);
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(fs.readFileSync(model));
const bytes = fs.readFileSync(pixelsFile);
const pixels = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
const off = () => new ort.Tensor('float32', new Float32Array([0]), []);
const { logits } = await session.run({
  pixels: new ort.Tensor('float32', pixels, [1, 3, Number(h), Number(w)]),
  target: new ort.Tensor('float32', new Float32Array(Number(classes)), [1, Number(classes)]),
  pixel_relevance: off(),
  attnlrp_relevance: off(),
  cp_lrp_relevance: off(),
}, ['logits']);
fs.writeFileSync(out, Buffer.from(logits.data.buffer, logits.data.byteOffset, logits.data.byteLength));
