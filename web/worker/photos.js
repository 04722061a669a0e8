// @ts-check
// The inference Worker's photos: each analysed photo kept with its preprocessed pixels (its
// classes' tensors in the core's heap, within the model's budget: runtime/photo-cache.js)
// for later classes, methods and start layers, the newest MAX_PHOTOS of them; analysis
// (prediction and the first map), explanation, and a photo's target-independent tensors
// cached when the Worker is idle (split graphs).
import { graphMethodIds } from '../../runtime/metadata.js';
import { REPLY, NOTICE } from '../lib/protocol.js';
import { core, photoCacheOf } from './sessions.js';
import { Stale, checkFresh, notice, whenIdle, forgetIdle } from './queue.js';

const now = () => performance.now();

const photos = new Map();    // imageId → { photoCache, photo }, oldest first
const MAX_PHOTOS = 8;        // closing one frees its tensors
export const photoCount = () => photos.size;

export function photoOf(imageId) {
  const entry = photos.get(imageId);
  if (!entry) throw new Stale(); // released, or pushed out by newer photos
  return entry;
}

function dropPhoto(imageId) {
  const entry = photos.get(imageId);
  if (!entry) return;
  entry.photoCache.closePhoto(entry.photo);
  photos.delete(imageId);
}

// { id: { shape, data, correlation? } } for posting (a contrast's maps carry correlation;
// a text's results their word maps too).
export function wireResults(results) {
  return results.map(({ target, maps, wordMaps }) => {
    const out = {};
    for (const [m, { shape, data, correlation }] of Object.entries(maps)) {
      out[m] = correlation === undefined ? { shape, data } : { shape, data, correlation };
    }
    return wordMaps ? { target, maps: out, wordMaps } : { target, maps: out };
  });
}

// Frees every photo's tensors (the Worker's models are unloaded: web/worker/unload.js).
export function dropAllPhotos() {
  for (const imageId of [...photos.keys()]) dropPhoto(imageId);
}

// Keeps an opened photo (or text: web/worker/texts.js) under its id, the newest MAX_PHOTOS.
export function keepPhoto(imageId, entry) {
  dropPhoto(imageId);
  photos.set(imageId, entry);
  while (photos.size > MAX_PHOTOS) dropPhoto(photos.keys().next().value);
}

// Frees a photo's tensors, and forgets its caching if it has not run yet.
/** @param {import('../lib/protocol.js').ReleaseRequest} msg */
export function release({ imageId }) {
  forgetIdle(`photo ${imageId}`);
  dropPhoto(imageId);
}

// Photo → prediction and the top-1 explanation in ONE explainer run (with photoGraph: the
// photo graph, kept as the photo's cache, then the target graph: embeds, whose next
// request follows at once). Also gives the region of the photo the model saw, where the
// page draws the heat map.
/** @param {import('../lib/protocol.js').AnalyzeRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply */
export async function analyze(msg, reply) {
  const { modelKey, imageId, rgba, width, height, startLayer = 0, photoGraph = false, crop } = msg;
  const photoCache = await photoCacheOf(modelKey);
  const methods = msg.methods ?? graphMethodIds(core, photoCache.explainer.metadata);
  const t0 = now();
  const photo = photoCache.openPhoto(new Uint8ClampedArray(rgba), width, height, { crop });
  keepPhoto(imageId, { photoCache, photo });
  const preprocessMs = now() - t0;
  checkFresh(msg);
  const viaPhoto = photoGraph && photoCache.explainer.canCachePhoto;
  // Before the session of the graph that explains these methods is open, the forward graph
  // predicts at once (not where one session is open at a time: it would be opened in vain).
  const { explainer } = photoCache;
  const viaForward = !viaPhoto && explainer.hasForward && !explainer.oneSession && !explainer.isOpenFor(core.outputsFor(methods));
  const { top5, target, modelMs } = viaPhoto ? await photoCache.predictFromPhoto(photo)
    : viaForward ? await photoCache.predictForward(photo) : await photoCache.predict(photo, { methods });
  reply({
    type: REPLY.PREDICTION, imageId,
    top5: top5.map(({ id: cls, prob }) => ({ id: cls, prob })),
    logits: photo.logits, // every class's standing (probability, rank) comes from these
    region: photo.region,
    predictedBy: viaPhoto ? 'photo' : viaForward ? 'forward' : 'explainer',
    timings: { preprocessMs },
  });
  const { results, timings } = await photoCache.explain(photo, [target], { methods, startLayer });
  reply({ type: REPLY.MAPS, imageId, results: wireResults(results), startLayer, timings: { ...timings, modelMs: modelMs + timings.modelMs } });
  if (photoCache.explainer.canCachePhoto && !viaPhoto) whenIdle(`photo ${imageId}`, () => cacheIdlePhoto(imageId));
}

/** @param {import('../lib/protocol.js').ExplainRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply */
export async function explain(msg, reply) {
  const { imageId, targets, startLayer = 0 } = msg;
  const { photoCache, photo } = photoOf(imageId);
  const methods = msg.methods ?? graphMethodIds(core, photoCache.explainer.metadata);
  checkFresh(msg);
  const { results, timings } = await photoCache.explain(photo, targets, { methods, startLayer });
  checkFresh(msg);
  reply({ type: REPLY.MAPS, imageId, results: wireResults(results), startLayer, timings });
}

async function cacheIdlePhoto(imageId) {
  const entry = photos.get(imageId);
  const promise = entry && entry.photoCache.cachePhoto(entry.photo);
  if (!promise) return;
  try {
    const cache = await promise;
    notice({ type: NOTICE.PHOTO_CACHED, imageId, timings: { modelMs: cache.modelMs } });
  } catch (err) {
    notice({ type: NOTICE.PHOTO_CACHE_FAILED, imageId, message: err?.message ?? String(err) });
  }
}
