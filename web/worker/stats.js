// The Worker's counters (for tests and the benchmark) and its bench hook.
import { REPLY } from '../lib/protocol.js';
import { sessionStats } from './sessions.js';
import { photoCount, photoOf } from './photos.js';

const workerId = Math.random().toString(36).slice(2);

// attribution: web/worker/attribution.js's requests.
export async function stats(attribution) {
  return { type: REPLY.STATS, ...await sessionStats(), attribution: await attribution.runs(), photos: photoCount(), workerId };
}

// Bench hook: the plain forward (logits only) on a photo, `runs` times, through the page's
// plain forward graph (split graphs): a true forward pass, since onnxruntime-web runs the
// whole explainer graph even when only its logits are fetched.
export async function benchForward({ imageId, runs = 5 }) {
  const { photoSessions, photo } = photoOf(imageId);
  if (!photoSessions.explainer.hasForward) throw new Error(`bench: ${photoSessions.entry.name} has no plain forward graph among its split graphs`);
  const { explainer } = photoSessions;
  const times = [];
  for (let i = 0; i < runs; i++) times.push((await explainer.predict(photo.pixels)).timings.modelMs);
  return { type: REPLY.BENCH, times };
}
