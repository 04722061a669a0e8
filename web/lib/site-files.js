// The files the site's scripts load at run time, relative to the folder of its top-level
// scripts: web/ as written (scripts/serve-sources.js serves the build's outputs there) and
// the top of dist/site, where the build puts each top-level script as one bundle and these
// files beside it (scripts/build/site.js). Only a top-level script passes its own
// import.meta.url as `base`: a module of lib/ sits one folder deeper here but inside a
// bundle at the top in dist/site, so a URL built from its own location would differ.
export const siteFiles = (base) => ({
  worker: new URL('worker.js', base),
  decoder: new URL('decode-worker.js', base), // web/api/photo-decoder.js
  models: new URL('models/', base),
  // the C++ core (runtime/core.js's loadCore moduleUrl); its .wasm beside it
  core: new URL('build/wasm/vit_relevance_core.mjs', base),
  // onnxruntime-web per backend; each finds its own .wasm beside itself
  ort: { wasm: new URL('ort/ort.wasm.min.mjs', base), webgpu: new URL('ort/ort.webgpu.min.mjs', base) },
});
