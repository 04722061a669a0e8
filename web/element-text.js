// @ts-check
// The <vit-relevance> element's text drawing (web/element/text-drawing.js, with its colours):
// its own script (its own bundle in dist/site, as web/attribution-job.js), which
// web/element/drawing.js loads when an element first meets a text model, so a photo-only
// embed never downloads it. Its few pure runtime helpers are bundled into it again.
export { drawText } from './element/text-drawing.js';
