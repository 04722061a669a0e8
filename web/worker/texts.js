// @ts-check
// The inference Worker's texts: their code (web/worker/text-analysis.js) is part of the text
// models' script, web/worker-text.js, which opening the text model loaded already, so a
// Worker that explains photos never downloads it. The Worker's state that code uses (the
// kept photos, the queue) stays here and is handed to it.
import { photoCacheOf } from './sessions.js';
import { keepPhoto, wireResults } from './photos.js';
import { checkFresh } from './queue.js';

/** @param {import('../lib/protocol.js').AnalyzeTextRequest} msg @param {import('../lib/protocol.js').ReplyFn} reply */
export async function analyzeText(msg, reply) {
  const textCache = await photoCacheOf(msg.modelKey);
  if (!textCache.openText) throw new Error(`${textCache.metadata.name} is an image model: it explains photos, not texts`);
  const { analyzeText: analyze } = await import('../worker-text.js');
  return analyze(msg, reply, textCache, { keepPhoto, wireResults, checkFresh });
}
