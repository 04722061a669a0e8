// Starts the page's inference Worker from the head of index.html and of embed.html (the
// iframe route), before their scripts have loaded: a Worker takes tens of milliseconds to
// start, and, named after the WebAssembly backend, it compiles onnxruntime at once
// (web/worker.js), so that compile runs while the page's own script loads. The page
// (web/page/model.js) and the iframe route (web/embed.js) take the Worker over
// (window.__vitrelWorker), or start their own where there is none. A classic script: it
// runs as soon as it is read.
{
  const worker = new Worker(new URL('./worker.js', document.baseURI), { type: 'module', name: 'vit-relevance:wasm' });
  // One that fails before the page's script takes it over is dropped, and the script starts another.
  worker.addEventListener('error', () => {
    if (window.__vitrelWorker === worker) window.__vitrelWorker = null;
  });
  window.__vitrelWorker = worker;
}
