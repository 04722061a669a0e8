// Node-only: opens the Self-Attention Attribution graphs that models/export.py
// --attribution writes beside GRAPH.onnx (GRAPH.states.onnx, GRAPH.attr<b>.onnx,
// GRAPH.attribution.bin) in onnxruntime-web.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openAttribution } from '../attribution.js';
import { loadEngine } from './ort-engine.js';
import { UserError } from '../errors.js';

export function attributionPaths(onnxPath, blocks) {
  const base = onnxPath.replace(/\.onnx$/i, '');
  return {
    states: `${base}.states.onnx`,
    blocks: Array.from({ length: blocks }, (_, b) => `${base}.attr${b}.onnx`),
    weights: `${base}.attribution.bin`,
  };
}

// Throws naming the missing files (cheap: call it before any expensive work).
export function checkAttributionFiles(onnxPath, blocks) {
  const files = attributionPaths(onnxPath, blocks);
  const missing = [files.states, files.weights, ...files.blocks].filter((f) => !existsSync(f));
  if (missing.length) {
    throw new UserError(`attribution graphs not found: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''} `
      + '(models/export.py --attribution writes them; npm run build does)');
  }
  return files;
}

export async function openAttributionFiles(onnxPath, metadata, { threads } = {}) {
  const files = checkAttributionFiles(onnxPath, metadata.architecture.blocks);
  const runtime = await loadEngine('web', { threads });
  return openAttribution({
    ort: runtime.ort, metadata, sessionOptions: runtime.sessionOptions,
    weightsName: path.basename(files.weights),
    files: {
      states: await readFile(files.states),
      blocks: await Promise.all(files.blocks.map((f) => readFile(f))),
      weights: await readFile(files.weights),
    },
  });
}
