// @ts-check
// The inference Worker's text models (an index entry with `kind: "text"`): the explainer
// graph and the vocabulary read at once (Cache Storage after the first visit, as the image
// models' files) while onnxruntime and the core compile; the metadata checked and the
// vocabulary made the core's tokenizer as soon as they are there, while the weights are
// still read. With the method family graphs over one weights file (index.json's split) no
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

// The text model's metadata from its file's bytes, checked, or one line naming the file.
function checkedMetadata(model, bytes) {
  let metadata;
  try {
    metadata = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error(`${model.metadata} is not valid JSON`);
  }
  validateMetadata(metadata, model.metadata);
  const wrong = kindMismatch(metadata, 'text');
  if (wrong) throw new Error(`${model.name}: its index entry says text, its metadata does not: ${wrong}`);
  return metadata;
}

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
  const reads = files.map(read);
  // The metadata checked and the tokenizer built while the weights are still read: a bad
  // metadata file is told before them, and the tokenizer's 25 ms are off the first map's way.
  const tokenizing = Promise.all([reads[0], reads[2], time(PHASE.CORE, loaders.core)]).then(([metaBytes, vocabBytes, core]) => {
    const metadata = checkedMetadata(model, metaBytes);
    return { metadata, core, tokenizer: textTokenizer(core, new TextDecoder().decode(vocabBytes), metadata) };
  });
  const [downloads, { ort, compileMs }, { metadata, core, tokenizer }] = await Promise.all([
    time(PHASE.FETCH, () => Promise.all(reads)),
    time(PHASE.COMPILE, loaders.ort),
    tokenizing,
  ]).catch((err) => {
    tokenizing.then(({ tokenizer: built }) => built.free(), () => {});
    throw err;
  });
  const graph = downloads[1];
  const [weights, ...familyBytes] = downloads.slice(3, 3 + shared.length);
  const forward = files.includes(model.forward_onnx) ? downloads[files.length - 1] : undefined;
  const bytes = downloads.reduce((s, b) => s + b.byteLength, 0);
  reply({ type: REPLY.PROGRESS, loaded: bytes, total: bytes });
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
