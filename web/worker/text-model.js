// @ts-check
// The inference Worker's text models (an index entry with `kind: "text"`): the explainer
// graph and the vocabulary read at once (Cache Storage after the first visit, as the image
// models' files) while onnxruntime and the core compile, the vocabulary checked against
// the model. With the method family graphs over one weights file (index.json's split) no
// session opens here: each family's opens when a request first needs it, so the first map
// opens only its family's (runtime/text-explainer.js); a folder exported before them has
// one self-contained graph, whose session opens here. Its texts
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
 * @param {{ model: any, base: string, backend?: string, prepare?: boolean, verify?: boolean }} msg the init request
 * @param {(body: object) => void} reply
 * @param {{ ort: () => Promise<{ ort: any, compileMs: number }>, core: () => Promise<any> }} loaders
 */
export async function openTextModel({ model, base, backend = 'wasm', prepare = false, verify = false }, reply, loaders) {
  const url = (file) => new URL(file, base).href;
  const { time, ms } = phaseTimer(reply);
  // The plain forward graph (its own copy of the weights) only for a page that asks for
  // everything at once (prepare): timeForward() and the benchmark run it.
  const familyFiles = Object.values(model.split?.families ?? {});
  const shared = model.split ? [model.split.weights, ...familyFiles] : [];
  const files = [model.metadata, model.onnx, model.vocab, ...shared, ...(prepare && model.forward_onnx ? [model.forward_onnx] : [])];
  if (!model.vocab) throw new Error(`${model.name}: its index entry names no vocabulary (vocab): export it again with vit-relevance export`);
  const loaded = files.map(() => 0);
  const total = (model.bytes ?? 0) + (model.split?.bytes ?? 0) + (files.includes(model.forward_onnx) ? model.forward_bytes ?? 0 : 0);
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
  const [metaBytes, graph, vocabBytes] = downloads;
  const [weights, ...familyBytes] = downloads.slice(3, 3 + shared.length);
  const forward = files.includes(model.forward_onnx) ? downloads[files.length - 1] : undefined;
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
    families: familyFiles.map((name, i) => ({ name, bytes: familyBytes[i] })),
    ...(weights && { sessionOptions: { externalData: [{ path: model.split.weights, data: weights }] } }),
  })).then(async (opened) => {
    // verify: every graph opened and checked before ready (a folder the visitor brought).
    if (verify) await opened.openAll().catch(async (err) => { await opened.release(); throw err; });
    return opened;
  }).catch((err) => {
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
