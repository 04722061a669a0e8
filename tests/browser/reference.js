// The same explanation computed outside the browser: runtime/explainer.js on
// onnxruntime-web's Node build plus the WebAssembly core, as `vit-relevance` does.
import path from 'node:path';
import { loadCore } from '../../runtime/core.js';
import { openExplainerFile } from '../../runtime/node/open-explainer.js';
import { decodeImage } from '../../runtime/node/image.js';
import { topK } from '../../runtime/topk.js';
import { paths, firstModel } from './harness.js';

// → { [classId]: map of `method` } for the photo and each class id.
export async function referenceMaps(photoFile, classIds, method = 'transformer_attribution') {
  const core = await loadCore();
  const explainer = await openExplainerFile(path.join(paths.models, firstModel().onnx), { threads: 1 });
  try {
    const { rgba, width, height } = await decodeImage(photoFile);
    const { pixels } = core.preprocess(rgba, width, height, explainer.metadata.preprocess);
    const { tensors } = await explainer.explain(pixels, classIds);
    const grid = explainer.metadata.architecture.grid;
    const out = {};
    classIds.forEach((id, k) => {
      const m = core.computeMaps(tensors[k], { methods: [method], grid })[method];
      out[id] = { rows: m.shape[0], cols: m.shape[1], data: Array.from(m.data) };
    });
    return out;
  } finally {
    await explainer.release();
  }
}

// The top-5 { id, prob } the Node pipeline gives a photo (decode, preprocess, graph).
export async function referenceTop5(photoFile) {
  const core = await loadCore();
  const explainer = await openExplainerFile(path.join(paths.models, firstModel().onnx), { threads: 1 });
  try {
    const { rgba, width, height } = await decodeImage(photoFile);
    const { pixels } = core.preprocess(rgba, width, height, explainer.metadata.preprocess);
    const { logits } = await explainer.predict(pixels);
    return topK(logits, 5).map(({ id, prob }) => ({ id, prob }));
  } finally {
    await explainer.release();
  }
}

export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

export function pearson(a, b) {
  const n = a.length;
  const ma = a.reduce((s, v) => s + v, 0) / n;
  const mb = b.reduce((s, v) => s + v, 0) / n;
  let sab = 0; let saa = 0; let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) ** 2;
    sbb += (b[i] - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}
