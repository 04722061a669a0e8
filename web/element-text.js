// @ts-check
// The <vit-relevance> element's text code: its text (web/element/text-source.js: the
// attribute or the content, its checks, the content watcher) and its drawing
// (web/element/text-drawing.js, with its colours and its styles). Its own script (its own
// bundle in dist/site, as web/attribution-job.js), which web/element/drawing.js loads when
// an element may explain a text (no photo, a text attribute or content) or meets a text
// model, so a photo-only embed never downloads it. Its few pure runtime helpers are
// bundled into it again.
import { drawText as drawTextTiles } from './element/text-drawing.js';
import { adoptTextStyle } from './element/text-style.js';

export { checkSource, inputOf, watchContent } from './element/text-source.js';

/** The element's text, drawn as text-drawing.js draws it, its shadow root given the text's styles.
 * @param {any} core @param {HTMLElement} element @param {Parameters<typeof drawTextTiles>[2]} shown */
export function drawText(core, element, shown) {
  adoptTextStyle(element);
  return drawTextTiles(core, element, shown);
}
