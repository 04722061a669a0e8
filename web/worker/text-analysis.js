// @ts-check
// The inference Worker's texts (a text model's: web/worker/text-model.js): a text is
// tokenized, predicted and its predicted class explained in one graph run, then kept with
// the photos (web/worker/photos.js), whose `explain` and `release` serve it from then on.
// Part of the text models' script (web/worker-text.js): web/worker/texts.js calls it with
// the Worker's own state (the text model, and photos.js's and queue.js's functions).
import { REPLY } from '../lib/protocol.js';

const now = () => performance.now();

/**
 * @param {import('../lib/protocol.js').AnalyzeTextRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply
 * @param {any} textCache the text model's (runtime/text-cache.js)
 * @param {{ keepPhoto: typeof import('./photos.js').keepPhoto, wireResults: typeof import('./photos.js').wireResults,
 *   checkFresh: typeof import('./queue.js').checkFresh }} worker
 */
export async function analyzeText(msg, reply, textCache, { keepPhoto, wireResults, checkFresh }) {
  const { imageId, text, methods, startLayer = 0 } = msg;
  const t0 = now();
  const doc = textCache.openText(text);
  keepPhoto(imageId, { photoCache: textCache, photo: doc });
  const { tokenized, notice } = doc;
  reply({ type: REPLY.TOKENS, imageId, ...tokenized, notice });
  const preprocessMs = now() - t0;
  checkFresh(msg);
  const { top5, target, modelMs } = await textCache.predict(doc, { methods });
  reply({
    type: REPLY.PREDICTION, imageId,
    top5: top5.map(({ id, prob }) => ({ id, prob })),
    logits: doc.logits,
    region: null,
    predictedBy: 'explainer',
    timings: { preprocessMs },
  });
  const { results, timings } = await textCache.explain(doc, [target], { methods, startLayer });
  reply({ type: REPLY.MAPS, imageId, results: wireResults(results), startLayer, timings: { ...timings, modelMs: modelMs + timings.modelMs } });
}
