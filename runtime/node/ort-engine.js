// @ts-check
// Node-only: which ONNX Runtime runs the graphs. 'web' is onnxruntime-web's WebAssembly
// backend, the engine the page uses (the CLI's default, so CLI and page agree);
// 'node' is onnxruntime-node's native CPU backend, about 4× faster here on the same graph,
// for batch work such as evaluations. It is an optional dependency: 'auto' takes it when
// installed and falls back to 'web'.
import os from 'node:os';

export const ENGINE_IDS = ['auto', 'node', 'web'];

async function importNodeOrt() {
  try {
    const mod = await import('onnxruntime-node');
    return mod.default ?? mod;
  } catch (err) {
    return { missing: err.message };
  }
}

export function defaultThreads() {
  return os.availableParallelism?.() ?? os.cpus().length;
}

// → { name, ort, sessionOptions }: sessionOptions select the backend and thread count.
// onnxruntime-web's thread count is process-wide and fixed by the first session created.
/** @param {string} [name] @param {{ threads?: number }} [options] */
export async function loadEngine(name = 'web', { threads } = {}) {
  if (!ENGINE_IDS.includes(name)) throw new Error(`unknown engine "${name}"; known: ${ENGINE_IDS.join(', ')}`);
  if (name !== 'web') {
    const ort = await importNodeOrt();
    if (!('missing' in ort)) {
      return {
        name: 'node',
        ort,
        sessionOptions: { executionProviders: ['cpu'], intraOpNumThreads: threads ?? defaultThreads() },
      };
    }
    if (name === 'node') {
      throw new Error(`engine "node" needs the optional package onnxruntime-node (npm ci installs it): ${ort.missing}`);
    }
  }
  const ort = await import('onnxruntime-web');
  if (threads !== undefined) ort.env.wasm.numThreads = threads;
  return { name: 'web', ort, sessionOptions: { executionProviders: ['wasm'] } };
}
