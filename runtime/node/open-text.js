// @ts-check
// Node-only: the public API's explainer for a text model (runtime/node/index.js hands a
// model whose metadata says `kind: "text"` here): `<graph>.onnx`, its metadata, its
// vocabulary (tokenizer.vocab), when there `<graph>.forward.onnx` beside it, and the method
// family graphs and shared weights file its folder's index.json lists (split), each family's
// session opened when a request first needs it.
// explainer.open(text) tokenizes a text once for several explanations; explain(text)
// is open, explain, close. Results have the photos' shape, maps over tokens ({ shape: [S],
// data }), plus the text's tokens, offsets, words and each method's word map.
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openTextExplainer } from '../text-explainer.js';
import { createTextCache, textTokenizer } from '../text-cache.js';
import { kindMismatch } from '../text-metadata.js';
import { isTextInput } from '../text-input.js';
import { graphMethodIds } from '../metadata.js';
import { resolveClass } from '../targets.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resolveStartLayer, textTarget } from '../explain-request.js';
import { loadEngine } from './ort-engine.js';
import { forwardPathFor } from './open-explainer.js';
import { indexEntryFor, isFileBeside } from './index-entry.js';

// A vocabulary is a few hundred kB (BERT's: 30,522 lines, 232 kB); a file far larger is not one.
export const MAX_VOCAB_BYTES = 16 * 2 ** 20;

const now = () => performance.now();

export async function readVocab(onnxPath, metadata) {
  const file = path.join(path.dirname(onnxPath), metadata.tokenizer.vocab);
  if (!existsSync(file)) throw new Error(`vocabulary ${file} not found: a text model needs its tokenizer.vocab beside its metadata (the exporter writes it)`);
  const { size } = statSync(file);
  if (size > MAX_VOCAB_BYTES) throw new Error(`vocabulary ${file} is ${size} bytes, more than a vocabulary's ${MAX_VOCAB_BYTES}: not a WordPiece vocabulary`);
  return readFile(file, 'utf8');
}

// The text in `input` for a text model: a string or { text }; anything else is a photo.
function textOf(metadata, input) {
  if (typeof input === 'string') return input;
  if (isTextInput(input)) return input.text;
  throw new Error(kindMismatch(metadata, 'image'));
}

// The family graphs and the weights file the folder's index.json lists for the graph at
// onnxPath (models/exporter/text/graphs.py, write_shared), files beside it only: { weights:
// { path, data }, families: [{ name, bytes }] }, or null (a graph on its own, or a folder
// exported before them: its graph holds its weights).
export async function sharedTextFiles(onnxPath) {
  const found = indexEntryFor(onnxPath);
  const split = found?.entry.split;
  if (!split) return null;
  const { dir, entry } = found;
  const names = [split.weights, ...Object.values(split.families ?? {})];
  const bad = names.find((f) => !isFileBeside(dir, f));
  if (bad !== undefined) throw new Error(`${path.join(dir, 'index.json')} lists ${JSON.stringify(bad)} for ${entry.name}: not a file beside ${path.basename(onnxPath)}`);
  return {
    weights: { path: split.weights, data: await readFile(path.join(dir, split.weights)) },
    families: await Promise.all(Object.values(split.families ?? {}).map(async (f) => ({ name: f, bytes: await readFile(path.join(dir, f)) }))),
  };
}

/**
 * @param {{ onnxPath: string, metadata: any, core: any, engine?: 'web' | 'node' | 'auto', threads?: number }} options
 */
export async function loadTextExplainer({ onnxPath, metadata, core, engine = 'web', threads }) {
  // The vocabulary is checked against the model before its graph opens.
  const tokenizer = textTokenizer(core, await readVocab(onnxPath, metadata), metadata);
  const runtime = await loadEngine(engine, { threads });
  const model = await readFile(onnxPath);
  const forwardPath = forwardPathFor(onnxPath);
  const forwardModel = existsSync(forwardPath) ? await readFile(forwardPath) : undefined;
  const shared = await sharedTextFiles(onnxPath).catch((err) => {
    tokenizer.free();
    throw err;
  });
  const open = (weights) => openTextExplainer({
    ort: runtime.ort, model, metadata, families: shared?.families,
    sessionOptions: { ...runtime.sessionOptions, ...(weights && { externalData: [weights] }) },
    modelName: path.basename(onnxPath), forwardModel, forwardName: path.basename(forwardPath),
  });
  // A graph without its index.json, whose weights file lies beside it: read that file.
  const explainer = await open(shared?.weights).catch(async (err) => {
    const beside = err.externalData && path.join(path.dirname(onnxPath), err.externalData);
    if (shared || !beside || path.basename(beside) !== err.externalData || !existsSync(beside)) throw err;
    return open({ path: err.externalData, data: await readFile(beside) });
  }).catch((err) => {
    tokenizer.free();
    throw err;
  });
  const texts = createTextCache({ explainer, core, tokenizer });
  const opened = new Set(); // texts opened and not yet closed

  // A text opened once: its tokens, explained for any classes, methods and start layers
  // (each class's tensors kept), until close().
  /** @returns {import('./index.js').NodeText} */
  function openText(input) {
    const doc = texts.openText(textOf(metadata, input));
    const { tokenized } = doc; // text, tokens, ids, offsets, words, truncated
    opened.add(doc);
    return {
      ...tokenized,
      notice: doc.notice,
      /** @param {import('../explain-types.js').ExplainOptions} [options] */
      async explain({ targets, methods, startLayer = 0 } = {}) {
        const started = now();
        const wanted = resolveTargets(metadata, targets);
        const list = checkMethods(methods, core.explainerMethodIds);
        const start = resolveStartLayer(metadata, startLayer);
        // The predicted class comes from the run that explains it (a text explained before knows it).
        const predicted = wanted.some((t) => t.class === null) && !doc.logits ? await texts.predict(doc, { methods: list }) : null;
        const resolved = withPredicted(wanted, doc.logits ? texts.top5(doc)[0].id : null);
        const { results, timings } = await texts.explain(doc, resolved, { methods: list, startLayer: start });
        return {
          top5: top5Of(metadata, texts.top5(doc)),
          targets: results.map(({ target, maps, wordMaps }) => textTarget(metadata, target, maps, wordMaps, list, doc.logits)),
          ...tokenized,
          notes: doc.notice ? [doc.notice] : [],
          region: null,
          width: null,
          height: null,
          timings: { modelMs: (predicted?.modelMs ?? 0) + timings.modelMs, relevanceMs: timings.relevanceMs, totalMs: now() - started },
        };
      },
      close() {
        if (opened.delete(doc)) texts.closePhoto(doc);
      },
    };
  }

  return {
    kind: /** @type {'text'} */ ('text'),
    metadata,
    methods: graphMethodIds(core, metadata),
    method: (id) => core.method(id),
    engine: /** @type {'web' | 'node'} */ (runtime.name),
    classId: (spec) => resolveClass(metadata, spec),
    label: (id) => metadata.labels[id],
    // The forward pass alone (the benchmark's reference): → { logits, modelMs }.
    async forward(input) {
      const doc = texts.openText(textOf(metadata, input));
      const { logits, timings } = await explainer.predict(doc.pixels);
      return { logits, modelMs: timings.modelMs };
    },
    open: openText,
    async explain(input, options = {}) {
      const text = openText(input);
      try {
        return await text.explain(options);
      } finally {
        text.close();
      }
    },
    close: () => {
      for (const doc of opened) texts.closePhoto(doc);
      opened.clear();
      return texts.close();
    },
  };
}
