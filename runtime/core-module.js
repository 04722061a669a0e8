// @ts-check
// Loads the Emscripten module of the C++ core (build/wasm/vit_relevance_core.mjs + .wasm)
// for runtime/core.js, in Node (the .wasm read from disk beside the .mjs) and in a browser
// or Worker (fetched, or given): the one place that finds the core's files.

// The Emscripten module, by the package's export (package.json): not a path from this file,
// which a bundle moves.
const CORE_MODULE = 'vit-relevance/wasm/vit_relevance_core.mjs';
const WASM_FILE = 'vit_relevance_core.wasm';
const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

async function readWasmInNode(moduleUrl) {
  const { readFile } = await import('node:fs/promises');
  const wasmUrl = new URL(WASM_FILE, moduleUrl);
  try {
    return await readFile(wasmUrl);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
    throw new Error(`the WebAssembly core is not built (${wasmUrl.pathname} is missing): ` +
      'run `npm run build -- WebAssembly`');
  }
}

/** @param {Parameters<typeof import('./core.js').loadCore>[0]} options */
export async function loadModule({ wasmBinary, locateFile, moduleUrl }) {
  const url = new URL(moduleUrl ?? resolveCoreModule());
  const moduleOptions = {};
  if (wasmBinary) moduleOptions.wasmBinary = wasmBinary;
  else if (isNode) moduleOptions.wasmBinary = await readWasmInNode(url);
  if (locateFile) moduleOptions.locateFile = locateFile;
  let factory;
  try {
    ({ default: factory } = await import(url.href));
  } catch (err) {
    throw new Error(`cannot load the WebAssembly core from ${url.href}: ${err.message}` +
      (isNode ? ' (run `npm run build -- WebAssembly`)' : ''));
  }
  return factory(moduleOptions);
}

function resolveCoreModule() {
  try {
    return import.meta.resolve(CORE_MODULE);
  } catch {
    throw new Error(`loadCore: ${CORE_MODULE} does not resolve here (a Worker, or a page without ` +
      'an import map naming it): give options.moduleUrl, the URL of vit_relevance_core.mjs');
  }
}
