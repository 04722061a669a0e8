// @ts-check
// The inference Worker's text models (an index entry with `kind: "text"`): the explainer
// graph and the vocabulary read at once (Cache Storage after the first visit, as the image
// models' files) while onnxruntime and the core compile, the vocabulary checked against
// the model, then the graph's one session opened (runtime/text-explainer.js). Its texts
// are explained by runtime/text-cache.js, which web/worker/texts.js drives; the models
// map of web/worker/sessions.js holds it as it holds an image model's photo sessions.
// Text models run on WebAssembly. `loaders`: sessions.js's onnxruntime and core, loaded once.
import { openTextExplainer } from '../../runtime/text-explainer.js';
import { createTextCache, textTokenizer } from '../../runtime/text-cache.js';
import { kindMismatch } from '../../runtime/text-metadata.js';
import { graphMethodIds, validateMetadata } from '../../runtime/metadata.js';
import { fetchModelBytes } from '../lib/model-fetch.js';
import { REPLY } from '../lib/protocol.js';
import { phaseTimer, PHASE } from '../lib/load-phases.js';

/**
 * @param {{ model: any, base: string, backend?: string, prepare?: boolean }} msg the init request
 * @param {(body: object) => void} reply
 * @param {{ ort: () => Promise<{ ort: any, compileMs: number }>, core: () => Promise<any> }} loaders
 */
export async function openTextModel({ model, base, backend = 'wasm', prepare = false }, reply, loaders) {
  const url = (file) => new URL(file, base).href;
  const { time, ms } = phaseTimer(reply);
  // The plain forward graph (its own copy of the weights) only for a page that asks for
  // everything at once (prepare): timeForward() and the benchmark run it.
  const files = [model.metadata, model.onnx, model.vocab, ...(prepare && model.forward_onnx ? [model.forward_onnx] : [])];
  if (!model.vocab) throw new Error(`${model.name}: its index entry names no vocabulary (vocab): export it again with vit-relevance export`);
  const loaded = files.map(() => 0);
  const total = (model.bytes ?? 0) + (files.includes(model.forward_onnx) ? model.forward_bytes ?? 0 : 0);
  let fromCache = true;
  const read = (file, i) => fetchModelBytes(url(file), {
    sha256: model.sha256?.[file],
    onProgress: (n) => { loaded[i] = n; reply({ type: REPLY.PROGRESS, loaded: loaded.reduce((a, b) => a + b, 0), total }); },
  }).then((got) => { fromCache &&= got.fromCache; return got.bytes; });
  const [downloads, { ort, compileMs }, core] = await Promise.all([
    time(PHASE.FETCH, () => Promise.all(files.map(read))),
    time(PHASE.COMPILE, loaders.ort),
    time(PHASE.CORE, loaders.core),
  ]);
  const [metaBytes, graph, vocabBytes, forward] = downloads;
  const bytes = downloads.reduce((s, b) => s + b.byteLength, 0);
  reply({ type: REPLY.PROGRESS, loaded: bytes, total: bytes });
  let metadata;
  try {
    metadata = JSON.parse(new TextDecoder().decode(metaBytes));
  } catch {
    throw new Error(`${model.metadata} is not valid JSON`);
  }
  validateMetadata(metadata, model.metadata);
  const wrong = kindMismatch(metadata, 'text');
  if (wrong) throw new Error(`${model.name}: its index entry says text, its metadata does not: ${wrong}`);
  const tokenizer = textTokenizer(core, new TextDecoder().decode(vocabBytes), metadata);
  const explainer = await time(PHASE.PREPARE, () => openTextExplainer({
    ort, model: graph, metadata, modelName: model.onnx, forwardModel: forward, forwardName: model.forward_onnx,
  })).catch((err) => {
    tokenizer.free();
    throw err;
  });
  const textCache = Object.assign(createTextCache({ explainer, core, tokenizer }), { entry: model, base, ort });
  return {
    photoCache: textCache,
    ready: {
      type: REPLY.READY,
      metadata,
      backend: 'wasm',
      backendNote: backend === 'wasm' ? null : `${backend} was asked for, but text models run on WebAssembly`,
      threads: ort.env.wasm.numThreads,
      isolated: self.crossOriginIsolated,
      fromCache,
      bytes,
      split: false,
      phaseMs: ms,
      compileMs,
      methods: core.methods.filter((m) => graphMethodIds(core, metadata).includes(m.id)),
    },
  };
}
