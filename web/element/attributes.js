// @ts-check
// The <vit-relevance> element's attributes: which of them re-explain, re-draw or reload,
// their defaults, and the explained class's name. The class is `class-id` (docs/glossary.md:
// an HTML attribute cannot be `class`); `target`, its name before, is still read where
// `class-id` is absent, so pages written for it keep working. A text model's element reads
// `text` (or its content: web/element/text-source.js) and draws by `unit` (token | word).

/** The attributes that re-draw from the kept maps. */
export const RENDERING = new Set(['colormap', 'opacity', 'threshold', 'display', 'scale', 'view', 'unit']);
/** The attributes that re-explain the photo the Worker keeps. */
export const EXPLAINING = new Set(['class-id', 'target', 'contrast', 'method', 'start-layer']);
/** The attributes that open another photo, text, model or backend. */
export const LOADING = new Set(['src', 'text', 'model', 'backend']);
export const ATTRIBUTES = [...LOADING, ...EXPLAINING, ...RENDERING, 'controls', 'loading'];

/** @type {Readonly<Record<string, string>>} */
const DEFAULTS = {
  method: 'transformer_attribution', colormap: 'jet', opacity: '0.5', threshold: 'none', display: 'smooth', scale: 'auto',
  'start-layer': '0', view: 'overlay', controls: 'none', loading: 'lazy', backend: 'wasm', unit: 'token',
};

/** @param {Element} element @param {string} name @returns {any} the attribute, its default or null */
export const optionOf = (element, name) => element.getAttribute(name) ?? DEFAULTS[name] ?? null;

/** The explained class as written (`class-id`, else its alias `target`); null: the predicted class.
 * @param {Element} element @returns {string | null} */
export const classOf = (element) => element.getAttribute('class-id') ?? element.getAttribute('target');

/** The methods asked for, in order. @param {Element} element @returns {string[]} */
export const methodsOf = (element) => optionOf(element, 'method').split(',').map((/** @type {string} */ m) => m.trim()).filter(Boolean);

/** The start layer: a block number, or 'last' (the last block, as the official ERASER pipeline starts its text rollouts).
 * @param {Element} element @returns {number | 'last'} */
export const startLayerOf = (element) => (optionOf(element, 'start-layer') === 'last' ? 'last' : Number(optionOf(element, 'start-layer')) || 0);
