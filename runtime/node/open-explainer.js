// @ts-check
// Node-only: opens an explainer graph from disk, `<graph>.onnx` with its metadata
// `<graph>.json` beside it, running it in onnxruntime-web by default (the engine the page
// uses, so CLI and page give the same numbers) or in onnxruntime-node (engine 'node' or
// 'auto', see ort-engine.js) for batch work.
import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../explainer.js';
import { loadEngine } from './ort-engine.js';
import { indexEntryFor, isFileBeside } from './index-entry.js';

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

// Up to this size of weights the Node API takes the split graphs beside the explainer
// graph: three sessions, each with its own copy of the weights, in onnxruntime-web's one
// WebAssembly memory of at most 4 GB. A random ViT-B/16 (346 MB), its explainer, photo and
// class graphs open and run: peak RSS 3.8 GB, and its class switch cost the class graph
// alone, 2.9× its forward pass against 5.2× for the explainer graph (bench/scale.js
// --node; docs/experiments.md, "The Node API's ViT-B/16 class switch on the split graphs").
// The page keeps one session for weights over LARGE_WEIGHTS_BYTES: it has 2 GB for all.
export const NODE_SPLIT_WEIGHTS_BYTES = 400 * 2 ** 20;

// The split graphs (models/exporter/split.py) the models folder's index.json lists for the
// graph at onnxPath, or null (none, or too large to open beside it): { graph, photo,
// target, weights }; graph, the explainer graph reading the same weights file (null in a
// folder that lists none).
function splitGraphsFor(onnxPath) {
  const found = indexEntryFor(onnxPath);
  const split = found?.entry.split;
  const names = split && [split.photo, split.target, split.weights];
  // Files beside the graph only, as the exporter writes them.
  if (!names?.every((f) => isFileBeside(found.dir, f))) return null;
  const { dir } = found;
  const [photo, target, weights] = names.map((f) => path.join(dir, f));
  if (statSync(weights).size > NODE_SPLIT_WEIGHTS_BYTES) return null;
  return { graph: isFileBeside(dir, split.graph) ? path.join(dir, split.graph) : null, photo, target, weights };
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
  // The split graphs read their weights from a file of their own; onnxruntime-node is not
  // handed external weights as bytes here, so they run in onnxruntime-web alone.
  const splitFiles = split && runtime.name === 'web' ? splitGraphsFor(onnxPath) : null;
  // With them the explainer graph is the copy that reads the same weights file: the weights
  // are read from disk once (ViT-B/16: 346 MB, not twice).
  const graphPath = splitFiles?.graph ?? onnxPath;
  let model;
  try {
    model = await readFile(graphPath);
  } catch (err) {
    throw new Error(`cannot read model ${graphPath}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  const forwardPath = forwardPathFor(onnxPath);
  if (requireForward && !existsSync(forwardPath)) {
    throw new Error(`${forwardPath} not found: this command needs the plain forward graph beside the explainer `
      + '(models/export.py --plain writes it; npm run build does)');
  }
  const forwardModel = (withForward || requireForward) && existsSync(forwardPath) ? await readFile(forwardPath) : undefined;
  const splitBytes = splitFiles && {
    graphs: { photo: await readFile(splitFiles.photo), target: await readFile(splitFiles.target), later: true },
    weights: { path: path.basename(splitFiles.weights), data: await readFile(splitFiles.weights) },
  };
  const open = (options) => openExplainer({
    ort: runtime.ort, model, metadata, modelName: path.basename(graphPath), forwardModel, forwardName: path.basename(forwardPath),
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
