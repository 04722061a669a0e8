// Prepended to the Emscripten module factory. Emscripten 3.1.6's ES-module output still
// reads the CommonJS global __dirname when it runs in Node, which throws in ES-module
// scope. Declaring it here keeps the factory alive; runtime/core.js always passes the
// .wasm bytes (Module.wasmBinary) in Node, so the path is never used.
// eslint-disable-next-line no-unused-vars -- read by the Emscripten glue this precedes
var __dirname = '';
