// @ts-check
// The <vit-relevance> element's properties: each mirrors its attribute (web/element/attributes.js
// names them and their defaults), typed. The element (web/vit-relevance-element.js) extends
// this class.
import { classOf, startLayerOf, optionOf } from './attributes.js';

/**
 * @import { ClassSpec, MethodId, RenderOptions } from 'vit-relevance/runtime/explain-types.js'
 */

/** Sets an attribute from its property; null or undefined removes it. @param {Element} el @param {string} name @param {unknown} value */
function setOption(el, name, value) {
  if (value === null || value === undefined) el.removeAttribute(name);
  else el.setAttribute(name, String(value));
}

export class ElementProperties extends HTMLElement {
  // start-layer → startLayer; numbers as numbers; setting null or undefined removes the attribute.
  /** @type {string | null} */
  get src() { return optionOf(this, 'src'); }
  set src(v) { setOption(this, 'src', v); }
  /** The text a text model explains (else the element's content). @type {string | null} */
  get text() { return optionOf(this, 'text'); }
  set text(v) { setOption(this, 'text', v); }
  /** A text drawn by token (wordpieces) or by word. @type {'token' | 'word'} */
  get unit() { return optionOf(this, 'unit'); }
  set unit(v) { setOption(this, 'unit', v); }
  /** @type {string | null} */
  get model() { return optionOf(this, 'model'); }
  set model(v) { setOption(this, 'model', v); }
  /** The class to explain (`class-id`): an id, WordNet id or name; null: the predicted
   * class. @returns {string | null} */
  get classId() { return classOf(this); }
  /** @param {ClassSpec | null | undefined} v */
  set classId(v) {
    this.removeAttribute('target'); // its alias would otherwise name the class once class-id is removed
    setOption(this, 'class-id', v);
  }
  /** The class's name before `class-id`, kept as its alias. @deprecated use classId @returns {string | null} */
  get target() { return this.classId; }
  /** @param {ClassSpec | null | undefined} v */
  set target(v) { this.classId = v; }
  /** Class B: why the class rather than B. @returns {string | null} */
  get contrast() { return optionOf(this, 'contrast'); }
  /** @param {ClassSpec | null | undefined} v */
  set contrast(v) { setOption(this, 'contrast', v); }
  /** One method id, or several separated by commas (a small grid). @returns {string} */
  get method() { return optionOf(this, 'method'); }
  /** @param {MethodId | readonly MethodId[] | string | null | undefined} v */
  set method(v) { setOption(this, 'method', v); }
  /** @type {NonNullable<RenderOptions['colormap']>} */
  get colormap() { return optionOf(this, 'colormap'); }
  set colormap(v) { setOption(this, 'colormap', v); }
  /** Opacity of the map over the photo, 0..1. @returns {number} */
  get opacity() { return Number(optionOf(this, 'opacity')); }
  /** @param {number | string | null | undefined} v */
  set opacity(v) { setOption(this, 'opacity', v); }
  /** @type {NonNullable<RenderOptions['threshold']>} */
  get threshold() { return optionOf(this, 'threshold'); }
  set threshold(v) { setOption(this, 'threshold', v); }
  /** @type {NonNullable<RenderOptions['display']>} */
  get display() { return optionOf(this, 'display'); }
  set display(v) { setOption(this, 'display', v); }
  /** Colour scale: "auto" (signed for lrp_full, attnlrp, cp_lrp and contrasts), "positive"
   * (min-max) or "signed" (0 white, blue < 0 < red). @type {'auto' | 'positive' | 'signed'} */
  get scale() { return optionOf(this, 'scale'); }
  set scale(v) { setOption(this, 'scale', v); }
  /** First block of the rollouts, or 'last'. @returns {number | 'last'} */
  get startLayer() { return startLayerOf(this); }
  /** @param {number | string | null | undefined} v */
  set startLayer(v) { setOption(this, 'start-layer', v); }
  /** @type {'overlay' | 'side-by-side'} */
  get view() { return optionOf(this, 'view'); }
  set view(v) { setOption(this, 'view', v); }
  /** @type {'none' | 'compact'} */
  get controls() { return optionOf(this, 'controls'); }
  set controls(v) { setOption(this, 'controls', v); }
  /** @type {'lazy' | 'eager'} */
  get loading() { return optionOf(this, 'loading'); }
  set loading(v) { setOption(this, 'loading', v); }
  /** @type {'wasm' | 'webgpu'} */
  get backend() { return optionOf(this, 'backend'); }
  set backend(v) { setOption(this, 'backend', v); }
}
