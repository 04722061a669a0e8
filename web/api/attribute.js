// @ts-check
// Self-Attention Attribution of an opened photo or text (web/api/photo.js, web/api/text.js),
// block by block: the Worker's attribution job (web/attribution-job.js) runs it and reports
// each block as it ends. Loaded on the first request (web/api-attribute.js), so a page that
// only explains, as the elements do, never downloads it.
import { REPLY } from '../lib/protocol.js';
import { resolveTargets } from 'vit-relevance/runtime/explain-request.js';

/** @typedef {import('../lib/protocol.js').Reply} Reply */

/**
 * opened: the photo's or text's model, its id in the Worker once analysed (analysing it
 * first where needed), its attribute request to the Worker, and its prediction (after analysis).
 * @param {{ model: any, analysed: (signal?: AbortSignal) => Promise<number>,
 *   request: (body: object, options: { signal?: AbortSignal, onEvent?: (msg: Reply) => void }) => Promise<any>,
 *   top5: () => { id: number }[] | null | undefined }} opened
 * @param {import('../vit-relevance.js').AttributeOptions} options
 */
export async function attribute({ model, analysed, request, top5 }, { class: spec, blocks, steps = 20, onBlock, signal }) {
  const { metadata } = model;
  const id = resolveTargets(metadata, spec)[0].class;
  const imageId = await analysed(signal);
  const target = id ?? top5()?.[0].id;
  let prob = null;
  /** @param {Reply} msg */
  const onEvent = (msg) => {
    if (msg.type === REPLY.ATTRIBUTION_START) prob = msg.prob;
    if (msg.type === REPLY.ATTRIBUTION_BLOCK) onBlock?.({ block: msg.block, done: msg.done, total: msg.total, attr: msg.attr, probs: msg.probs, prob });
  };
  const all = Array.from({ length: metadata.architecture.blocks }, (_, b) => b);
  await request({ modelKey: model.modelKey, imageId, target, blocks: blocks ?? all, steps }, { signal, onEvent });
  return { class: target, prob };
}
