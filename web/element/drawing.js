// @ts-check
// The <vit-relevance> element's maps: every method's map of the first target drawn over
// the photo (or beside it), from the kept maps and the element's rendering attributes,
// each canvas named for screen readers, and the caption that goes under them. A text's
// drawing (web/element/text-drawing.js, with its colours) comes with the element's text
// code (web/element-text.js), which loads on demand, once per page, when an element first
// may explain a text: a photo-only embed never downloads it (its own script, as the
// Worker's Attribution job).
import { heatImage } from '../lib/render.js';
import { drawOverlay } from '../lib/overlay.js';
import { SCALE_CHOICES, scaleFor, scaleCaption } from 'vit-relevance/runtime/map-scale.js';
import { pct } from 'vit-relevance/runtime/confidence.js';
import { optionOf } from './attributes.js';
import { captionOf } from './caption.js';

/** @import { BrowserExplainResult, Explainer, MethodId, Photo } from '../vit-relevance.js' */

/** @type {Promise<typeof import('../element-text.js')> | null} */
let textDrawing = null;
/** Loads the element's text code, web/element-text.js (a failed download is tried again next time). */
export function loadElementText() {
  textDrawing ??= import('../element-text.js').catch((err) => { textDrawing = null; throw err; });
  return textDrawing;
}

/** The function that draws a result: its maps over the photo, or its text. @param {{ tokens?: unknown }} result */
export const drawerOf = async (result) => (result.tokens ? (await loadElementText()).drawText : drawMaps);

/**
 * @param {any} core the core, loaded for drawing (loadRenderer)
 * @param {HTMLElement} element whose attributes say how to draw
 * @param {{ result: BrowserExplainResult, photo: Photo, explainer: Explainer }} shown
 * @returns {{ tiles: HTMLElement[], caption: string }}
 */
export function drawMaps(core, element, { result, photo: { bitmap }, explainer }) {
  // untyped: runtime/confidence.js's standingText declares a class count that targets lack
  const [target] = /** @type {any[]} */ (result.targets);
  const methods = /** @type {MethodId[]} */ (Object.keys(target.maps));
  const sideBySide = optionOf(element, 'view') === 'side-by-side';
  const opacity = Math.min(1, Math.max(0, Number(optionOf(element, 'opacity'))));
  const display = optionOf(element, 'display') === 'grid' ? 'grid' : 'smooth';
  const options = { colormap: optionOf(element, 'colormap'), threshold: optionOf(element, 'threshold'), display };
  // 'auto' | 'positive' | 'signed' (runtime/map-scale.js); an unknown value falls back to auto
  const choice = SCALE_CHOICES.includes(optionOf(element, 'scale')) ? optionOf(element, 'scale') : 'auto';
  const photo = { bitmap, width: result.width, height: result.height };
  const what = target.contrast ? `${target.label} rather than ${target.contrast.label}` : target.label;
  const tiles = [];
  if (sideBySide) tiles.push(tile(photo, null, null, 'Photo', `Photo (${result.width}×${result.height})`, opacity));
  for (const m of methods) {
    const map = target.maps[m];
    const scale = scaleFor(choice, m, Boolean(target.contrast));
    const heat = heatImage(core, map, { ...options, scale });
    const label = `Relevance map: ${explainer.method(m).name} for ${what}${target.contrast ? '' : `, ${pct(target.prob)}`}`;
    const t = tile(photo, result.region, heat, methods.length > 1 || sideBySide ? explainer.method(m).shortName : null, label,
      sideBySide ? 1 : opacity, display);
    // What the colours mean: the scale, the range and the share of negative values.
    const canvas = /** @type {HTMLCanvasElement} */ (t.querySelector('canvas'));
    canvas.title = scaleCaption(core, map, scale);
    canvas.setAttribute('aria-description', canvas.title);
    canvas.dataset.scale = scale;
    tiles.push(t);
  }
  return { tiles, caption: captionOf(result, explainer) };
}

/**
 * One canvas: the photo, with the heat image over its region where there is one.
 * @param {{ bitmap: ImageBitmap, width: number, height: number }} photo
 * @param {any} region @param {any} heat @param {string | null} badge @param {string} label
 * @param {number} opacity @param {string} [display]
 */
function tile(photo, region, heat, badge, label, opacity, display = 'smooth') {
  const div = document.createElement('div');
  div.className = 'tile';
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', label);
  drawOverlay(canvas, photo, region, heat, { opacity, smooth: display === 'smooth', maxSide: 1024 });
  canvas.style.maxWidth = `${canvas.width}px`; // no upscaling past the photo's own pixels
  div.append(canvas);
  if (badge) {
    const span = document.createElement('span');
    span.textContent = badge;
    div.append(span);
  }
  return div;
}
