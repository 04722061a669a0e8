// @ts-check
// Node-only: the entry of a models folder's index.json for the graph file at onnxPath (the
// entry whose `onnx` is that file's name), which lists the graphs and weights exported
// with it (split graphs, text families, attribution graphs). One reader for the three
// openers (open-explainer.js, open-text.js, open-attribution.js).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** → { dir, entry } or null: a graph on its own, an index.json that is not JSON, no such entry. */
export function indexEntryFor(onnxPath) {
  const dir = path.dirname(onnxPath);
  let index;
  try {
    index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  } catch {
    return null;
  }
  const entry = Array.isArray(index?.models) ? index.models.find((m) => m?.onnx === path.basename(onnxPath)) : null;
  return entry ? { dir, entry } : null;
}

/** Whether `name`, as an index entry lists it, is a plain file name and that file lies in `dir` (never a path elsewhere). */
export const isFileBeside = (dir, name) => typeof name === 'string' && name !== '' && name === path.basename(name) && existsSync(path.join(dir, name));
