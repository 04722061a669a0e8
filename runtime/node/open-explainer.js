// Node-only: opens an explainer graph from disk, `<graph>.onnx` with its metadata
// `<graph>.json` beside it, running it in onnxruntime-web (the engine the page uses, so
// CLI and page give the same numbers).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { openExplainer } from '../explainer.js';

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

// Thread count for onnxruntime-web's WebAssembly backend. It only takes effect before the
// first session is created in this process.
export function setOrtThreads(threads) {
  if (threads !== undefined) ort.env.wasm.numThreads = threads;
}

// `<graph>.forward.onnx`, the plain forward graph the exporter writes beside the explainer.
export function forwardPathFor(onnxPath) {
  return onnxPath.replace(/(\.onnx)?$/i, '.forward.onnx');
}

// withForward: also open `<graph>.forward.onnx` when it exists, so predict() is a real
// forward pass (onnxruntime-web runs the whole explainer graph even for logits alone).
export async function openExplainerFile(onnxPath, { threads, sessionOptions, withForward = false } = {}) {
  setOrtThreads(threads);
  const metadata = await readMetadata(metadataPathFor(onnxPath), onnxPath);
  let model;
  try {
    model = await readFile(onnxPath);
  } catch (err) {
    throw new Error(`cannot read model ${onnxPath}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  const forwardPath = forwardPathFor(onnxPath);
  const forwardModel = withForward && existsSync(forwardPath) ? await readFile(forwardPath) : undefined;
  return openExplainer({
    ort, model, metadata, sessionOptions, modelName: path.basename(onnxPath),
    forwardModel, forwardName: path.basename(forwardPath),
  });
}

export { ort };
