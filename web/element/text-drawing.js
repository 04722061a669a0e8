// @ts-check
// The <vit-relevance> element's text: every method's map of the first target drawn as the
// text itself, each token (unit="word": each word, which scores the max of its pieces) on
// its colour (runtime/text-colours.js: the CLI report's steps of the core's rdbu colormap,
// white at 0, signed where the method or a contrast is: runtime/map-scale.js), its score in
// its title and, on hover or focus, in the tile's readout line (the arrow keys move between
// words: one tab stop per method); a legend per method: the scale's colours and the values
// its ends stand for. [CLS] and [SEP] have no characters: their scores follow the text. The
// end of a text cut at the model's positions is not drawn (the caption says how much).
import { SCALE_CHOICES, scaleFor, scaleWords, scaleEnds, scaleCaption } from 'vit-relevance/runtime/map-scale.js';
import { pct } from 'vit-relevance/runtime/confidence.js';
import { TEXT_STEPS, stepColours, valueSteps, scoreText } from 'vit-relevance/runtime/text-colours.js';
import { optionOf } from './attributes.js';
import { captionOf } from './caption.js';

/** @import { BrowserTextResult, Explainer, MethodId } from '../vit-relevance.js' */

const HINT = 'Hover or focus a word for its score';

/** @typedef {{ start: number, end: number, name: string, index: number }} Run  a coloured stretch of the text */

/** The tokens' runs; a special token has no characters (start = end). @param {BrowserTextResult} result @returns {Run[]} */
const tokenRuns = ({ tokens, offsets }) => tokens.map((name, index) => ({ start: offsets[index][0], end: offsets[index][1], name, index }));

/** The words' runs: each word is text.slice(start, end), in order, so it is found from where the last one ended.
 * @param {BrowserTextResult} result @returns {Run[]} */
function wordRuns({ text, words }) {
  let at = 0;
  return words.map((name, index) => {
    const start = text.indexOf(name, at);
    if (start < 0) return { start: at, end: at, name, index };
    at = start + name.length;
    return { start, end: at, name, index };
  });
}

/**
 * @param {any} core the core, loaded for drawing (loadRenderer)
 * @param {HTMLElement} element whose attributes say how to draw
 * @param {{ result: BrowserTextResult, explainer: Explainer }} shown
 * @returns {{ tiles: HTMLElement[], caption: string }}
 */
export function drawText(core, element, { result, explainer }) {
  const [target] = /** @type {any[]} */ (result.targets);
  const methods = /** @type {MethodId[]} */ (Object.keys(target.maps));
  const words = optionOf(element, 'unit') === 'word';
  const runs = words ? wordRuns(result) : tokenRuns(result);
  const choice = SCALE_CHOICES.includes(optionOf(element, 'scale')) ? optionOf(element, 'scale') : 'auto';
  const colours = stepColours(core);
  const what = target.contrast ? `${target.label} rather than ${target.contrast.label}` : `${target.label}, ${pct(target.prob)}`;
  const tiles = methods.map((m) => {
    const scale = /** @type {'positive' | 'signed'} */ (scaleFor(choice, m, Boolean(target.contrast)));
    const values = words ? target.wordMaps[m] : target.maps[m].data;
    const tile = textTile(core, colours, result, runs, values, scale, `Relevance of each ${words ? 'word' : 'token'}: ${explainer.method(m).name} for ${what}`);
    tile.dataset.method = m;
    if (methods.length > 1) tile.prepend(Object.assign(document.createElement('span'), { textContent: explainer.method(m).shortName }));
    return tile;
  });
  return { tiles, caption: captionOf(result, explainer) };
}

/**
 * One method's tile: the coloured text, the special tokens' scores, the legend, the readout.
 * @param {any} core @param {{ rgb: string, light: boolean }[]} colours @param {BrowserTextResult} result
 * @param {Run[]} runs @param {ArrayLike<number>} values @param {'positive' | 'signed'} scale @param {string} label
 */
function textTile(core, colours, result, runs, values, scale, label) {
  const steps = valueSteps(core, values, scale);
  const tile = document.createElement('div');
  tile.className = 'tile text-tile';
  tile.dataset.scale = scale;
  const body = document.createElement('div');
  body.className = 'text';
  body.setAttribute('role', 'group');
  body.setAttribute('aria-label', label);
  const specials = document.createElement('p');
  specials.className = 'specials';
  const { text, truncated } = result;
  let at = 0;
  for (const run of runs) {
    const span = scored(run, values[run.index], steps[run.index], colours);
    if (run.end <= run.start) {
      span.textContent = run.name;
      specials.append(span, ' ');
      continue;
    }
    if (run.start > at) body.append(text.slice(at, run.start));
    span.textContent = text.slice(run.start, run.end);
    body.append(span);
    at = Math.max(at, run.end);
  }
  const end = truncated ? truncated.at : text.length;
  if (at < end) body.append(text.slice(at, end));
  if (truncated) body.append(Object.assign(document.createElement('small'), { className: 'cut', textContent: ` [… ${text.length - end} characters cut: not explained]` }));
  const readout = document.createElement('output');
  readout.className = 'score';
  readout.textContent = HINT;
  tile.append(body, ...(specials.childElementCount ? [specials] : []), legend(core, colours, values, scale), readout);
  const first = /** @type {HTMLElement | null} */ (tile.querySelector('.t'));
  if (first) first.tabIndex = 0;
  const show = (/** @type {Event} */ e) => {
    const t = /** @type {HTMLElement} */ (e.target);
    if (t.classList?.contains('t')) readout.textContent = t.title;
  };
  tile.addEventListener('pointerover', show);
  tile.addEventListener('focusin', show);
  tile.addEventListener('keydown', (e) => moveFocus(tile, e));
  return tile;
}

/** A run's span: its colour, its score in its title. @param {Run} run @param {number} value @param {number | null} step @param {{ rgb: string, light: boolean }[]} colours */
function scored(run, value, step, colours) {
  const span = document.createElement('span');
  span.className = 't';
  span.tabIndex = -1;
  span.title = `${run.name}: ${scoreText(value)}`;
  span.dataset.score = String(value);
  if (step !== null) {
    span.style.background = colours[step].rgb;
    span.style.color = colours[step].light ? '#111' : '#fff';
  }
  return span;
}

/** The scale's colours from end to end, the values the ends stand for, and the scale in words.
 * @param {any} core @param {{ rgb: string }[]} colours @param {ArrayLike<number>} values @param {'positive' | 'signed'} scale */
function legend(core, colours, values, scale) {
  const finite = Float32Array.from(Array.from(values).filter(Number.isFinite));
  const map = { data: finite, shape: [finite.length] };
  const div = document.createElement('div');
  div.className = 'legend';
  if (!finite.length) return div;
  const [low, high] = scaleEnds(core, map, scale);
  const bar = document.createElement('span');
  bar.className = 'bar';
  bar.style.background = `linear-gradient(to right, ${colours.slice(scale === 'signed' ? 0 : TEXT_STEPS / 2).map((c) => c.rgb).join(', ')})`;
  const words = document.createElement('span');
  words.textContent = scaleWords(core, map, scale);
  div.append(low, bar, high, words);
  div.title = scaleCaption(core, map, scale);
  return div;
}

// The arrow keys, Home and End move the focus between the tile's words.
/** @param {HTMLElement} tile @param {KeyboardEvent} e */
function moveFocus(tile, e) {
  const spans = /** @type {HTMLElement[]} */ (Array.from(tile.querySelectorAll('.t')));
  const i = spans.indexOf(/** @type {HTMLElement} */ (e.target));
  if (i < 0) return;
  const next = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: spans.length - 1 }[e.key];
  if (next === undefined || !spans[next]) return;
  e.preventDefault();
  spans[i].tabIndex = -1;
  spans[next].tabIndex = 0;
  spans[next].focus();
}
