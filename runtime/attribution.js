// @ts-check
// Runs the Self-Attention Attribution graphs (models/exporter/attribution.py) with
// onnxruntime-web: the hidden-states graph once, then for each requested block its
// attribution graph on the m scaled copies α_i = i/m (METHODS.md's left Riemann sum),
// and forms Attr[b] = A[b] ⊙ Σ_i ∂p_t/∂(α_i A[b]) / m. Environment-neutral like
// explainer.js: the caller passes `ort` and the bytes.
import { validateMetadata, contractDims } from './metadata.js';
import { modelKind, textDims } from './text-metadata.js';

// α values per graph run: the copies are batched, in runs of at most this many to bound
// the memory of the batched records (DeiT-tiny block 0: ≈ 60 MB per copy).
export const DEFAULT_STEPS_PER_RUN = 10;

// α_i = i/m, i = 0..m-1.
export function leftRiemannAlphas(steps) {
  return Float32Array.from({ length: steps }, (_, i) => i / steps);
}

// p_t: the softmax probability of class t (the attribution's scalar, METHODS.md).
export function probabilityOf(logits, t) {
  let max = -Infinity;
  for (const v of logits) max = Math.max(max, v);
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  return Math.exp(logits[t] - max) / sum;
}

// "all" or "i,j,..." → sorted distinct block indices in [0, B); throws naming the bad item.
export function parseBlocks(text, B) {
  if (text === undefined || text === 'all') return Array.from({ length: B }, (_, b) => b);
  const items = String(text).split(',').map((s) => s.trim());
  const blocks = items.map((s) => {
    const b = /^\d+$/.test(s) ? Number(s) : NaN;
    if (!(b >= 0 && b < B)) throw new Error(`--blocks: "${s}" is not a block index 0..${B - 1} (or give "all")`);
    return b;
  });
  return [...new Set(blocks)].sort((a, b) => a - b);
}

// files: { states, blocks: [bytes per block], weights } (bytes); weightsName: the file
// name the graphs reference for their external data.
export async function openAttribution({ ort, metadata, files, weightsName, sessionOptions = {} }) {
  validateMetadata(metadata, 'metadata');
  // A text model's graphs take input_ids [1,S], S the text's own (its hidden states say it).
  const text = modelKind(metadata) === 'text';
  const d = text ? textDims(metadata) : contractDims(metadata);
  const { blocks: B, heads: h, classes: C } = d;
  const { tokens: S0, height: H, width: W } = text ? { tokens: 0, height: 0, width: 0 } : contractDims(metadata);
  const D = metadata.architecture.embed_dim;
  // [S, D] of a block's hidden states from [B,S,D] ones: an image model's S is its tokens.
  const tokensAndWidth = (hidden) => (text ? [hidden.length / (B * D), D] : [S0, hidden.length / (B * S0)]);
  if (files.blocks.length !== B) {
    throw new Error(`the model has ${B} blocks but ${files.blocks.length} attribution graphs were given`);
  }
  const options = {
    executionProviders: ['wasm'], ...sessionOptions,
    externalData: [{ path: weightsName, data: new Uint8Array(files.weights) }],
  };
  const create = (bytes) => ort.InferenceSession.create(new Uint8Array(bytes), options);
  const states = await create(files.states);
  const blockSessions = new Array(B).fill(null);

  // ONNX sessions open when first used: an attribution of a few blocks opens only those.
  async function blockSession(b) {
    if (!blockSessions[b]) blockSessions[b] = await create(files.blocks[b]);
    return blockSessions[b];
  }

  // → { logits: Float32Array [C], hidden: Float32Array [B,S,D] }; a text model's input is
  // its token ids (BigInt64Array).
  async function hiddenStates(pixels) {
    if (text) {
      if (!(pixels instanceof BigInt64Array)) throw new Error('a text model\'s hidden states need its token ids as a BigInt64Array');
      const out = await states.run({ input_ids: new ort.Tensor('int64', pixels, [1, pixels.length]) });
      return { logits: out.logits.data, hidden: out.hidden.data };
    }
    if (!(pixels instanceof Float32Array) || pixels.length !== 3 * H * W) {
      throw new Error(`pixels must be a Float32Array of 3×${H}×${W} values`);
    }
    const out = await states.run({ pixels: new ort.Tensor('float32', pixels, [1, 3, H, W]) });
    return { logits: out.logits.data, hidden: out.hidden.data };
  }

  // One block: → { block, attr [h,S,S], attn, probs [m] (p_t(α_i A)) }.
  async function attributeBlock(hidden, b, classId, { steps, stepsPerRun = DEFAULT_STEPS_PER_RUN }) {
    const [S, D] = tokensAndWidth(hidden);
    const session = await blockSession(b);
    const alphas = leftRiemannAlphas(steps);
    const oneHot = new Float32Array(C);
    oneHot[classId] = 1;
    const feedsBase = {
      hidden: new ort.Tensor('float32', hidden.subarray(b * S * D, (b + 1) * S * D), [S, D]),
      target: new ort.Tensor('float32', oneHot, [C]),
    };
    const gradSum = new Float32Array(h * S * S);
    const probs = new Float32Array(steps);
    let attn = null;
    for (let start = 0; start < steps; start += stepsPerRun) {
      const chunk = alphas.subarray(start, Math.min(steps, start + stepsPerRun));
      const out = await session.run({ ...feedsBase, alpha: new ort.Tensor('float32', chunk, [chunk.length]) });
      const g = out.grad_sum.data;
      for (let i = 0; i < g.length; i++) gradSum[i] += g[i];
      probs.set(out.prob.data, start);
      attn ??= out.attn.data;
    }
    const attr = new Float32Array(gradSum.length);
    for (let i = 0; i < attr.length; i++) attr[i] = (attn[i] / steps) * gradSum[i];
    return { block: b, attr, attn, probs };
  }

  // Several blocks in order: → { attr: { data, shape: [blocks.length, h, S, S] }, results }
  // (results as attributeBlock's); onBlock(done, block) after each.
  /**
   * @param {Float32Array} hidden @param {number[]} blocks @param {number} classId
   * @param {{ steps?: number, stepsPerRun?: number, onBlock?: (done: number, block: number) => void }} [options]
   */
  async function attributeBlocks(hidden, blocks, classId, { steps, stepsPerRun, onBlock } = {}) {
    const [S] = tokensAndWidth(hidden);
    const attr = new Float32Array(blocks.length * h * S * S);
    const results = [];
    for (const [i, b] of blocks.entries()) {
      const r = await attributeBlock(hidden, b, classId, { steps, stepsPerRun });
      attr.set(r.attr, i * h * S * S);
      results.push(r);
      onBlock?.(i + 1, b);
    }
    return { attr: { data: attr, shape: [blocks.length, h, S, S] }, results };
  }

  // Frees block b's ONNX session; the next use opens it again. Each one holds its
  // own copy of the weights it reads, so the page keeps one open at a time.
  async function releaseBlock(b) {
    const session = blockSessions[b];
    blockSessions[b] = null;
    await session?.release();
  }

  return {
    dims: d,
    hiddenStates,
    attributeBlock,
    attributeBlocks,
    releaseBlock,
    async release() {
      await Promise.all([states, ...blockSessions].map((s) => s?.release()));
    },
  };
}

// The head-masked forward (<name>.masked.onnx: `pixels` [n,3,H,W], `head_mask` [B,h] →
// `logits` [n,C]) for head pruning; bytes and weights as openAttribution's.
// → { run(pixels, n, mask [B·h]) → logits Float32Array [n·C], release() }
export async function openMaskedForward({ ort, metadata, bytes, weights, weightsName, sessionOptions = {} }) {
  validateMetadata(metadata, 'metadata');
  const { blocks: B, heads: h, classes: C, height: H, width: W } = contractDims(metadata);
  const session = await ort.InferenceSession.create(new Uint8Array(bytes), {
    executionProviders: ['wasm'], ...sessionOptions,
    externalData: [{ path: weightsName, data: new Uint8Array(weights) }],
  });
  return {
    async run(pixels, n, mask) {
      if (!(pixels instanceof Float32Array) || !(n > 0) || pixels.length !== n * 3 * H * W) {
        throw new Error(`masked forward: pixels must be a Float32Array of ${n}×3×${H}×${W} values`);
      }
      if (!(mask instanceof Float32Array) || mask.length !== B * h) throw new Error(`masked forward: head_mask must be a Float32Array of ${B}×${h} values`);
      const out = await session.run({
        pixels: new ort.Tensor('float32', pixels, [n, 3, H, W]),
        head_mask: new ort.Tensor('float32', mask, [B, h]),
      });
      if (out.logits.data.length !== n * C) throw new Error(`masked forward: logits have shape [${out.logits.dims.join(',')}], expected [${n},${C}]`);
      return out.logits.data;
    },
    release: () => session.release(),
  };
}
