// @ts-check
// Node-only: opens an explainer graph from disk, `<graph>.onnx` with its metadata
// `<graph>.json` beside it, running it in onnxruntime-web by default (the engine the page
// uses, so CLI and page give the same numbers) or in onnxruntime-node (engine 'node' or
// 'auto', see ort-engine.js) for batch work.
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { openExplainer, LARGE_WEIGHTS_BYTES } from '../explainer.js';
import { loadEngine } from './ort-engine.js';

// A models folder (its index.json's first model), or an explainer graph .onnx (its
// metadata .json beside it) → the graph's path.
export async function explainerGraphFile(model) {
  const where = path.resolve(model);
  if (!existsSync(where)) throw new Error(`model ${model} not found: give an explainer graph (.onnx) or a models folder (npm run build writes build/models)`);
  if (!statSync(where).isDirectory()) return where;
  const indexFile = path.join(where, 'index.json');
  let index;
  try {
    index = JSON.parse(await readFile(indexFile, 'utf8'));
  } catch (err) {
    throw new Error(`model folder ${model} has no readable index.json (${err.code === 'ENOENT' ? 'no such file' : err.message})`);
  }
  const entry = index.models?.[0];
  if (!entry) throw new Error(`${indexFile} lists no model`);
  return path.join(where, entry.onnx);
}

// The metadata file that belongs to a graph: same name, .json instead of .onnx.
export function metadataPathFor(onnxPath) {
  const ext = path.extname(onnxPath);
  return (ext.toLowerCase() === '.onnx' ? onnxPath.slice(0, -ext.length) : onnxPath) + '.json';
}

export async function readMetadata(file, onnxPath) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') {
      throw new Error(`metadata ${file} not found: an explainer graph needs its .json beside the .onnx`
        + `${onnxPath ? ` (${path.basename(onnxPath)})` : ''}; the exporter writes both (npm run build)`);
    }
    throw new Error(`cannot read metadata ${file}: ${err.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`metadata ${file} is not valid JSON: ${err.message}`);
  }
}

// `<graph>.forward.onnx`, the plain forward graph the exporter writes beside the explainer.
export function forwardPathFor(onnxPath) {
  return onnxPath.replace(/(\.onnx)?$/i, '.forward.onnx');
}

// The split graphs (models/exporter/split.py) the models folder's index.json lists for the
// graph at onnxPath, or null (none, or too large to open beside it): { photo, target, weights }.
async function splitGraphsFor(onnxPath) {
  const dir = path.dirname(onnxPath);
  let index;
  try {
    index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8'));
  } catch {
    return null; // a graph on its own
  }
  const entry = Array.isArray(index?.models) ? index.models.find((m) => m?.onnx === path.basename(onnxPath)) : null;
  const split = entry?.split;
  const names = split && [split.photo, split.target, split.weights];
  // Files beside the graph only, as the exporter writes them.
  if (!names?.every((f) => typeof f === 'string' && f === path.basename(f))) return null;
  const files = names.map((f) => path.join(dir, f));
  if (!files.every((f) => existsSync(f))) return null;
  // onnxruntime-web's WebAssembly memory stops at 4 GB and every session keeps its own copy
  // of the weights (and prepacked copies): beside the explainer graph's, the photo and class
  // graphs' sessions of ViT-B/16 (347 MB of weights) failed with bad_alloc (bench/scale.js).
  if (statSync(files[2]).size > LARGE_WEIGHTS_BYTES) return null;
  return { photo: files[0], target: files[1], weights: files[2] };
}

// withForward: also open `<graph>.forward.onnx` when it exists, so predict() is a real
// forward pass (onnxruntime-web runs the whole explainer graph even for logits alone).
// requireForward: a missing forward graph is an error (evaluations batch their forwards).
// split: also take the split graphs its models folder lists (onnxruntime-web only), opened
// when first used (the explainer graph's session opens at once): cachePhoto()/explainCached().
// The returned explainer carries `engine` ('web' or 'node').
// metadata: the graph's metadata when the caller has read it already (readMetadata).
// A graph whose weights sit in an external file beside it (models/exporter/split.py's
// .graph.onnx) is opened with that file.
/**
 * @param {string} onnxPath
 * @param {{ threads?: number, sessionOptions?: object, withForward?: boolean, requireForward?: boolean,
 *   engine?: 'web' | 'node' | 'auto', metadata?: object, split?: boolean }} [options]
 */
export async function openExplainerFile(onnxPath, {
  threads, sessionOptions, withForward = false, requireForward = false, engine = 'web', metadata, split = false,
} = {}) {
  const runtime = await loadEngine(engine, { threads });
  metadata ??= await readMetadata(metadataPathFor(onnxPath), onnxPath);
  let model;
  try {
    model = await readFile(onnxPath);
  } catch (err) {
    throw new Error(`cannot read model ${onnxPath}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  const forwardPath = forwardPathFor(onnxPath);
  if (requireForward && !existsSync(forwardPath)) {
    throw new Error(`${forwardPath} not found: this command needs the plain forward graph beside the explainer `
      + '(models/export.py --plain writes it; npm run build does)');
  }
  const forwardModel = (withForward || requireForward) && existsSync(forwardPath) ? await readFile(forwardPath) : undefined;
  // The split graphs read their weights from a file of their own; onnxruntime-node is not
  // handed external weights as bytes here, so they run in onnxruntime-web alone.
  const splitFiles = split && runtime.name === 'web' ? await splitGraphsFor(onnxPath) : null;
  const splitBytes = splitFiles && {
    graphs: { photo: await readFile(splitFiles.photo), target: await readFile(splitFiles.target), later: true },
    weights: { path: path.basename(splitFiles.weights), data: await readFile(splitFiles.weights) },
  };
  const open = (options) => openExplainer({
    ort: runtime.ort, model, metadata, modelName: path.basename(onnxPath), forwardModel, forwardName: path.basename(forwardPath),
    split: splitBytes?.graphs,
    sessionOptions: {
      ...runtime.sessionOptions, ...sessionOptions, ...options,
      ...(splitBytes && { externalData: [...options?.externalData ?? [], splitBytes.weights] }),
    },
  });
  const explainer = await open().catch(async (err) => {
    const weights = err.externalData && path.join(path.dirname(onnxPath), err.externalData);
    if (!weights || path.basename(weights) !== err.externalData || !existsSync(weights)) throw err;
    return open({ externalData: [{ path: err.externalData, data: await readFile(weights) }] });
  });
  explainer.engine = runtime.name;
  return explainer;
}

export { ort };
