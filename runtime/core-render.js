// Rendering and preprocessing wrappers of runtime/core.js (src/render, src/preprocess).
// Filled in as those parts of the core are bound; each function checks its arguments in
// the C++ core and throws an InputError there.
export function renderApi(M) {
  return {};
}
