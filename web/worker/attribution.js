// @ts-check
// The Attribution panel's requests, run by web/attribution-job.js: its own script (its own
// bundle in dist/site), loaded on the first request, so embeds, which never send one,
// never download it. `load` imports it: only a top-level script can name another by a
// path that holds both in web/ and in dist/site (scripts/build/bundle.js).
import { onceRetrying } from './once-retrying.js';
import { photoCacheOf } from './sessions.js';
import { photoOf } from './photos.js';

export function attributionRequests(load) {
  const loadJob = onceRetrying(load);
  return {
    /** @param {import('../lib/protocol.js').AttributeRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply */
    async attribute(msg, reply) {
      const photoCache = await photoCacheOf(msg.modelKey);
      const { attribute } = await loadJob();
      return attribute(msg, reply, { photoCache, photo: photoOf(msg.imageId).photo, ort: photoCache.ort });
    },
    // Frees a model's attribution graphs' sessions, where a request opened them.
    async forget(photoCache) {
      const job = await loadJob.started()?.catch(() => null);
      await job?.forget(photoCache);
    },
    // Graph runs so far, without loading the job where no request has.
    async runs() {
      const job = await loadJob.started()?.catch(() => null);
      return job ? job.attributionRuns() : { blocks: 0, states: 0 };
    },
  };
}
