// @ts-check
// Node-only: opens the Self-Attention Attribution graphs that models/export.py
// --attribution writes beside GRAPH.onnx (GRAPH.states.onnx, GRAPH.attr<b>.onnx,
// GRAPH.masked.onnx and their weights: the file the folder's index.json names, the shared
// GRAPH.weights.bin of a text model or of an image model with its split graphs, else
// GRAPH.attribution.bin) in onnxruntime-web, or
// onnxruntime-node for batch work (engine, as runtime/node/ort-engine.js).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { openAttribution, openMaskedForward } from '../attribution.js';
import { loadEngine } from './ort-engine.js';
import { UserError } from '../errors.js';
import { indexEntryFor } from './index-entry.js';

// The `attribution` of the index.json entry beside onnxPath for that graph, or null (a
// graph on its own, a folder without them). A name that is not a plain file name throws.
function listedAttribution(onnxPath) {
  const found = indexEntryFor(onnxPath);
  const listed = found?.entry.attribution;
  if (!listed) return null;
  const { dir, entry } = found;
  const names = [listed.states, listed.masked, listed.weights, ...(Array.isArray(listed.blocks) ? listed.blocks : [null])];
  const bad = names.find((f) => typeof f !== 'string' || !f || f !== path.basename(f));
  if (bad !== undefined) throw new UserError(`${path.join(dir, 'index.json')} lists ${JSON.stringify(bad)} among ${entry.name}'s attribution graphs: not a file beside ${path.basename(onnxPath)}`);
  const at = (f) => path.join(dir, f);
  return { states: at(listed.states), blocks: listed.blocks.map(at), weights: at(listed.weights), masked: at(listed.masked) };
}

// The attribution files of the graph at onnxPath: as its folder's index.json names them,
// else the exporter's names beside it.
export function attributionPaths(onnxPath, blocks) {
  const listed = listedAttribution(onnxPath);
  if (listed) return listed;
  const base = onnxPath.replace(/\.onnx$/i, '');
  return {
    states: `${base}.states.onnx`,
    blocks: Array.from({ length: blocks }, (_, b) => `${base}.attr${b}.onnx`),
    weights: `${base}.attribution.bin`,
    masked: `${base}.masked.onnx`,
  };
}

// Throws naming the missing files (cheap: call it before any expensive work).
// masked: check the head-masked forward instead of the attribution graphs.
export function checkAttributionFiles(onnxPath, blocks, { masked = false } = {}) {
  const files = attributionPaths(onnxPath, blocks);
  const wanted = masked ? [files.masked, files.weights] : [files.states, files.weights, ...files.blocks];
  const missing = wanted.filter((f) => !existsSync(f));
  if (missing.length) {
    throw new UserError(`attribution graphs not found: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''} `
      + '(models/export.py --attribution writes them; npm run build does)');
  }
  return files;
}

/**
 * @param {string} onnxPath @param {{ architecture: { blocks: number } }} metadata
 * @param {{ threads?: number, engine?: 'web' | 'node' | 'auto' }} [options]
 */
export async function openAttributionFiles(onnxPath, metadata, { threads, engine = 'web' } = {}) {
  const files = checkAttributionFiles(onnxPath, metadata.architecture.blocks);
  const runtime = await loadEngine(engine, { threads });
  return openAttribution({
    // Without the arena each block session gives its batched records back after a run
    // (onnxruntime-node kept ≈ 4 GB for DeiT-tiny's 12 sessions otherwise).
    ort: runtime.ort, metadata, sessionOptions: { ...runtime.sessionOptions, enableCpuMemArena: false },
    weightsName: path.basename(files.weights),
    files: {
      states: await readFile(files.states),
      blocks: await Promise.all(files.blocks.map((f) => readFile(f))),
      weights: await readFile(files.weights),
    },
  });
}

/**
 * @param {string} onnxPath @param {{ architecture: { blocks: number } }} metadata
 * @param {{ threads?: number, engine?: 'web' | 'node' | 'auto' }} [options]
 */
export async function openMaskedForwardFile(onnxPath, metadata, { threads, engine = 'web' } = {}) {
  const files = checkAttributionFiles(onnxPath, metadata.architecture.blocks, { masked: true });
  const runtime = await loadEngine(engine, { threads });
  return openMaskedForward({
    ort: runtime.ort, metadata, sessionOptions: runtime.sessionOptions,
    bytes: await readFile(files.masked), weights: await readFile(files.weights), weightsName: path.basename(files.weights),
  });
}
