// @ts-check
// A text model's head-masked forward (GRAPH.masked.onnx, models/exporter/text/graphs.py:
// input_ids [n,S] and head_mask [B,h] → logits [n,C]; a head's post-softmax attention is
// multiplied by its entry), as runtime/attribution.js's openMaskedForward is for photos:
// run(ids, n, mask) takes n texts of the same length S laid end to end (no padding: the
// graph has no attention mask). Environment-neutral: the caller passes `ort` and the bytes.
import { textDims } from './text-metadata.js';

export async function openMaskedTextForward({ ort, metadata, bytes, weights, weightsName, sessionOptions = {} }) {
  const { blocks: B, heads: h, classes: C } = textDims(metadata);
  const session = await ort.InferenceSession.create(new Uint8Array(bytes), {
    executionProviders: ['wasm'], ...sessionOptions,
    externalData: [{ path: weightsName, data: new Uint8Array(weights) }],
  });
  return {
    async run(ids, n, mask) {
      if (!(ids instanceof BigInt64Array) || !(n > 0) || ids.length % n !== 0) {
        throw new Error(`masked text forward: ids must be a BigInt64Array of ${n} texts of one length`);
      }
      if (!(mask instanceof Float32Array) || mask.length !== B * h) throw new Error(`masked text forward: head_mask must be a Float32Array of ${B}×${h} values`);
      const out = await session.run({
        input_ids: new ort.Tensor('int64', ids, [n, ids.length / n]),
        head_mask: new ort.Tensor('float32', mask, [B, h]),
      });
      if (out.logits.data.length !== n * C) throw new Error(`masked text forward: logits have shape [${out.logits.dims.join(',')}], expected [${n},${C}]`);
      return out.logits.data;
    },
    release: () => session.release(),
  };
}
