// @ts-check
// The inference Worker's texts (a text model's: web/worker/text-model.js): a text is
// tokenized, predicted and its predicted class explained in one graph run, then kept with
// the photos (web/worker/photos.js), whose `explain` and `release` serve it from then on.
import { REPLY } from '../lib/protocol.js';
import { photoCacheOf } from './sessions.js';
import { keepPhoto, wireResults } from './photos.js';
import { checkFresh } from './queue.js';

const now = () => performance.now();

/** @param {import('../lib/protocol.js').AnalyzeTextRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply */
export async function analyzeText(msg, reply) {
  const { modelKey, imageId, text, methods, startLayer = 0 } = msg;
  const textCache = await photoCacheOf(modelKey);
  if (!textCache.openText) throw new Error(`${textCache.metadata.name} is an image model: it explains photos, not texts`);
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
