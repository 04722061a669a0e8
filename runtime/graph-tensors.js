// @ts-check
// The tensors that go into and come out of an explainer's graphs: the pixels in, each
// output checked against the shape the metadata implies for K target rows, and the
// outputs cut into one set of views per target row, as core.computeMaps takes them.

// First maximum, as the graph's ArgMax picks it.
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

export function sameDims(a, b) {
  return a.length === b.length && a.every((v, i) => Number(v) === b[i]);
}

// The class each target row explains: its id, argmax(logits) for a predicted-class row
// (null: the graph substitutes the top-1 class), null for a weight vector.
export const explainedClass = (row, logits) => (typeof row === 'number' ? row : row === null ? argmax(logits) : null);

// The tensors of one model's graphs, from its contractDims (runtime/metadata.js).
export function graphTensors(ort, { blocks: B, heads: h, tokens: S, classes: C, height: H, width: W }) {
  // Expected shape of each output for K target rows; the K-leading ones are sliced per row.
  const shapes = (K) => ({
    logits: [1, C],
    attn: [B, h, S, S],
    attn_grad: [K, B, h, S, S],
    attn_rel: [K, B, h, S, S],
    attn_rel_classic_last: [K, h, S, S],
    input_rel_classic: [K, H, W],
    input_rel_attnlrp: [K, H, W],
    input_rel_cp_lrp: [K, H, W],
  });

  function pixelsTensor(pixels) {
    const data = pixels?.data ?? pixels;
    if (!(data instanceof Float32Array) || data.length !== 3 * H * W) {
      throw new Error(`pixels must be a Float32Array of 3×${H}×${W} = ${3 * H * W} normalised values`
        + ` (got ${data?.constructor?.name ?? typeof data} of length ${data?.length})`);
    }
    return new ort.Tensor('float32', data, [1, 3, H, W]);
  }

  function checkShapes(result, fetches, K, graphName) {
    const expected = shapes(K);
    for (const name of fetches) {
      const t = result[name];
      if (!t) throw new Error(`${graphName} returned no "${name}"`);
      if (!sameDims(t.dims, expected[name])) {
        throw new Error(`${graphName}: output ${name} has shape [${t.dims.join(',')}], metadata implies [${expected[name].join(',')}]`);
      }
    }
  }

  // Per target row views ({ data, shape } without the K axis) of the fetched outputs, under
  // their graph names; attn is one object shared by all rows.
  function perRowTensors(result, fetches, K) {
    /** @type {Record<string, { data: any, shape: number[] }>[]} */
    const perRow = Array.from({ length: K }, () => ({}));
    const expected = shapes(K);
    for (const name of fetches) {
      const data = result[name].data;
      if (name === 'attn') {
        const attn = { data, shape: expected.attn };
        perRow.forEach((t) => { t.attn = attn; });
      } else {
        const shape = expected[name].slice(1); // drop the K axis
        const size = data.length / K;
        perRow.forEach((t, k) => { t[name] = { data: data.subarray(k * size, (k + 1) * size), shape }; });
      }
    }
    return perRow;
  }

  return { pixelsTensor, checkShapes, perRowTensors };
}
