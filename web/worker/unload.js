// @ts-check
// The inference Worker's unload request (web/lib/protocol.js): every model it holds freed,
// its photos and texts, the background work still waiting and each ONNX session, the
// Attribution panel's included, while onnxruntime and the core stay compiled. The page's
// model switch keeps its Worker this way (web/api/shared-runtime.js): the next model opens
// without a compile, on code the last one warmed.
import { forgetAllIdle } from './queue.js';
import { dropAllPhotos } from './photos.js';
import { takeModels } from './sessions.js';

/** @param {{ forget: (photoCache: any) => Promise<void> }} attribution web/worker/attribution.js's requests */
export async function unload(attribution) {
  forgetAllIdle();
  dropAllPhotos();
  for (const photoCache of await takeModels()) {
    await attribution.forget(photoCache);
    await photoCache.close();
  }
}
