// @ts-check
// The inference Worker's text models (web/worker/text-model.js: the explainer graph, the
// tokenizer and their text cache) and their texts (web/worker/text-analysis.js): its own
// script (its own bundle in dist/site, as web/attribution-job.js), which
// web/worker/sessions.js loads when a page first opens a text model, so a Worker that
// explains photos never downloads it. The runtime modules it shares with worker.js are
// bundled into it again; none keeps state that the two would need to share (the Worker
// hands its own to analyzeText: web/worker/texts.js).
export { openTextModel } from './worker/text-model.js';
export { analyzeText } from './worker/text-analysis.js';
