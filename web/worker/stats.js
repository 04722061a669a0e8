// @ts-check
// The Worker's counters (for tests and the benchmark) and its bench hook.
import { REPLY } from '../lib/protocol.js';
import { sessionStats } from './sessions.js';
import { photoCount, photoOf } from './photos.js';

const workerId = Math.random().toString(36).slice(2);

// attribution: web/worker/attribution.js's requests.
/** @returns {Promise<import('../lib/protocol.js').StatsReply>} */
export async function stats(attribution) {
  return { type: REPLY.STATS, ...await sessionStats(), attribution: await attribution.runs(), photos: photoCount(), workerId };
}

// Bench hook: the plain forward (logits only) on a photo, `runs` times, through the page's
// plain forward graph (split graphs): a true forward pass, since onnxruntime-web runs the
// whole explainer graph even when only its logits are fetched.
/** @param {import('../lib/protocol.js').BenchRequest} msg @returns {Promise<import('../lib/protocol.js').BenchReply>} */
export async function benchForward({ imageId, runs = 5 }) {
  const { photoCache, photo } = photoOf(imageId);
  if (!photoCache.explainer.hasForward) throw new Error(`bench: ${photoCache.entry.name} has no plain forward graph among its split graphs`);
  const { explainer } = photoCache;
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await explainer.predict(photo.pixels)).timings.modelMs);
  return { type: REPLY.BENCH, times };
}
