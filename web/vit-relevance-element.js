// @ts-check
// <vit-relevance src="photo.jpg" class-id="bull mastiff" method="transformer_attribution">:
// a live, class-specific relevance map inside any page, built on the public API
// (vit-relevance.js). All elements of a page share one Worker and one session per model.
// Rendering attributes re-draw from the kept maps; the class, contrast, method and start
// layer re-explain the photo (a text model: the `text`, else the content) the Worker keeps.
// Parts by job in web/element/; `data-state` says where it is: busy, done or error.
import { loadExplainer, loadRenderer } from './vit-relevance.js';
import { ATTRIBUTES, LOADING, EXPLAINING, RENDERING, optionOf, classOf, methodsOf, startLayerOf } from './element/attributes.js';
import { drawerOf, loadTextDrawing } from './element/drawing.js';
import { checkSource, inputOf, watchContent } from './element/text-source.js';
import { fillControls } from './element/controls.js';
import { styleSheet } from './element/style.js';

/**
 * @import { ClassSpec, MethodId, RenderOptions } from 'vit-relevance/runtime/explain-types.js'
 * @import { BrowserExplainResult, BrowserTextResult, ExplainerMetadata, LoadPhase } from './vit-relevance.js'
 */

/**
 * The element's events and their `detail`.
 * @typedef {object} VitRelevanceEventMap
 * @property {CustomEvent<{ metadata: ExplainerMetadata }>} load The model is ready.
 * @property {CustomEvent<{ loaded: number, total: number, phases: readonly LoadPhase[] }>} progress
 *   Bytes of the model files downloaded, and the load phases running now.
 * @property {CustomEvent<BrowserExplainResult | BrowserTextResult>} explained
 * @property {CustomEvent<{ message: string }>} error
 */

export class VitRelevanceElement extends HTMLElement {
  static observedAttributes = ATTRIBUTES;

  #shadow;
  #internals;          // the host's role and accessible name, without touching its attributes
  #maps;
  #caption;
  #controls;
  #explainer = null;   // { key, promise }
  #opened = null;      // { key, promise of a Photo or Text }
  #result = null;
  #shown = null;       // { photo, explainer } of #result
  #abort = null;
  #pending = null;     // 'render' | 'explain', coalesced into one microtask
  #started = false;
  #observer = null;
  #content = null;     // watches the element's content: its text where it has no text attribute
  #generation = 0;

  constructor() {
    super();
    this.#shadow = this.attachShadow({ mode: 'open' });
    this.#internals = this.attachInternals();
    this.#internals.role = 'figure';
    this.#shadow.adoptedStyleSheets = [styleSheet()];
    const figure = document.createElement('figure');
    this.#controls = document.createElement('div');
    this.#controls.className = 'controls';
    this.#controls.hidden = true;
    this.#maps = document.createElement('div');
    this.#maps.className = 'maps';
    this.#caption = document.createElement('figcaption');
    this.#caption.className = 'status';
    figure.append(this.#controls, this.#maps, this.#caption);
    this.#shadow.append(figure);
  }

  /** The last explanation. @type {BrowserExplainResult | null} */
  get result() { return this.#result; }

  // Properties mirror the attributes (start-layer → startLayer), typed: numbers as
  // numbers; setting null or undefined removes the attribute.
  /** @type {string | null} */
  get src() { return this.#option('src'); }
  set src(v) { this.#set('src', v); }
  /** The text a text model explains (else the element's content). @type {string | null} */
  get text() { return this.#option('text'); }
  set text(v) { this.#set('text', v); }
  /** A text drawn by token (wordpieces) or by word. @type {'token' | 'word'} */
  get unit() { return this.#option('unit'); }
  set unit(v) { this.#set('unit', v); }
  /** @type {string | null} */
  get model() { return this.#option('model'); }
  set model(v) { this.#set('model', v); }
  /** The class to explain (`class-id`): an id, WordNet id or name; null: the predicted
   * class. @returns {string | null} */
  get classId() { return classOf(this); }
  /** @param {ClassSpec | null | undefined} v */
  set classId(v) {
    this.removeAttribute('target'); // its alias would otherwise name the class once class-id is removed
    this.#set('class-id', v);
  }
  /** The class's name before `class-id`, kept as its alias. @deprecated use classId @returns {string | null} */
  get target() { return this.classId; }
  /** @param {ClassSpec | null | undefined} v */
  set target(v) { this.classId = v; }
  /** Class B: why the class rather than B. @returns {string | null} */
  get contrast() { return this.#option('contrast'); }
  /** @param {ClassSpec | null | undefined} v */
  set contrast(v) { this.#set('contrast', v); }
  /** One method id, or several separated by commas (a small grid). @returns {string} */
  get method() { return this.#option('method'); }
  /** @param {MethodId | readonly MethodId[] | string | null | undefined} v */
  set method(v) { this.#set('method', v); }
  /** @type {NonNullable<RenderOptions['colormap']>} */
  get colormap() { return this.#option('colormap'); }
  set colormap(v) { this.#set('colormap', v); }
  /** Opacity of the map over the photo, 0..1. @returns {number} */
  get opacity() { return Number(this.#option('opacity')); }
  /** @param {number | string | null | undefined} v */
  set opacity(v) { this.#set('opacity', v); }
  /** @type {NonNullable<RenderOptions['threshold']>} */
  get threshold() { return this.#option('threshold'); }
  set threshold(v) { this.#set('threshold', v); }
  /** @type {NonNullable<RenderOptions['display']>} */
  get display() { return this.#option('display'); }
  set display(v) { this.#set('display', v); }
  /** Colour scale: "auto" (signed for lrp_full, attnlrp, cp_lrp and contrasts), "positive"
   * (min-max) or "signed" (0 white, blue < 0 < red). @type {'auto' | 'positive' | 'signed'} */
  get scale() { return this.#option('scale'); }
  set scale(v) { this.#set('scale', v); }
  /** First block of the rollouts, or 'last'. @returns {number | 'last'} */
  get startLayer() { return startLayerOf(this); }
  /** @param {number | string | null | undefined} v */
  set startLayer(v) { this.#set('start-layer', v); }
  /** @type {'overlay' | 'side-by-side'} */
  get view() { return this.#option('view'); }
  set view(v) { this.#set('view', v); }
  /** @type {'none' | 'compact'} */
  get controls() { return this.#option('controls'); }
  set controls(v) { this.#set('controls', v); }
  /** @type {'lazy' | 'eager'} */
  get loading() { return this.#option('loading'); }
  set loading(v) { this.#set('loading', v); }
  /** @type {'wasm' | 'webgpu'} */
  get backend() { return this.#option('backend'); }
  set backend(v) { this.#set('backend', v); }

  connectedCallback() {
    this.#content = watchContent(this, () => this.#started && (!this.hasAttribute('src') || this.#opened?.key.startsWith('text:')) && this.#schedule('explain'));
    if (this.#option('loading') === 'eager') return this.#start();
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) this.#start();
    }, { rootMargin: '200px' });
    this.#observer.observe(this);
  }

  // Cancels pending work and frees the photo's maps, here and in the Worker.
  disconnectedCallback() {
    this.#observer?.disconnect();
    this.#observer = null;
    this.#content?.disconnect();
    this.#abort?.abort();
    this.#release();
    this.#result = null;
    this.#shown = null;
    this.#started = false;
    this.#maps.replaceChildren();
  }

  /** @param {string} name @param {string | null} old @param {string | null} value */
  attributeChangedCallback(name, old, value) {
    if (old === value) return;
    if (name === 'controls') this.#fillControls();
    if (!this.#started) return;
    if (LOADING.has(name)) {
      if (name === 'model' || name === 'backend') this.#explainer = null;
      this.#release();
      this.#schedule('explain');
    } else if (EXPLAINING.has(name)) this.#schedule('explain');
    else if (RENDERING.has(name)) this.#schedule('render');
  }

  /** Runs (or re-runs) the explanation now, whatever `loading` says. @returns {Promise<BrowserExplainResult>} */
  explain() {
    this.#started = true;
    this.#observer?.disconnect();
    this.#pending = null;
    return this.#run();
  }

  #start() {
    if (this.#started) return;
    this.#started = true;
    this.#observer?.disconnect();
    this.#schedule('explain');
  }

  /** @param {string} name @returns {any} the attribute, its default or null */
  #option(name) { return optionOf(this, name); }

  /** @param {string} name @param {unknown} value */
  #set(name, value) {
    if (value === null || value === undefined) this.removeAttribute(name);
    else this.setAttribute(name, String(value));
  }

  #schedule(kind) {
    const first = !this.#pending;
    if (kind === 'explain' || !this.#pending) this.#pending = kind;
    if (!first) return;
    queueMicrotask(() => {
      const job = this.#pending;
      this.#pending = null;
      if (!job || !this.isConnected) return;
      if (job === 'render' && this.#result) this.#render();
      else this.#run().catch(() => {}); // reported by the error event
    });
  }

  #release() {
    const opened = this.#opened;
    this.#opened = null;
    opened?.promise.then((p) => p.close(), () => {});
  }

  #emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  #loadExplainer(signal) {
    const [model, backend] = [this.#option('model') ?? undefined, this.#option('backend')];
    const key = `${model}|${backend}`;
    if (this.#explainer?.key !== key) {
      const promise = loadExplainer({
        model, backend, onProgress: (info) => { if (info.status === 'progress') this.#emit('progress', { loaded: info.loaded, total: info.total, phases: info.phases }); },
      });
      promise.then((explainer) => { if (this.#explainer?.promise === promise) this.#emit('load', { metadata: explainer.metadata }); }, () => {});
      this.#explainer = { key, promise };
    }
    const { promise } = this.#explainer;
    return signal ? Promise.race([promise, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]) : promise;
  }

  async #run() {
    const generation = ++this.#generation;
    this.#abort?.abort();
    const abort = new AbortController();
    this.#abort = abort;
    const { signal } = abort;
    this.#status(this.#result ? 'Explaining…' : 'Loading…', 'busy');
    try {
      checkSource(this); // nothing to explain, or a text too long: one line, nothing downloaded
      // The core that draws the maps loads while the model does: loaded after, it held the
      // first map back by its download and compile. A failure shows when the map is drawn.
      loadRenderer().catch(() => {});
      const explainer = await this.#loadExplainer(signal);
      if (explainer.kind === 'text') loadTextDrawing().catch(() => {}); // downloads while the text is explained
      const { key, input } = inputOf(this, explainer.kind);
      if (this.#opened?.key !== key) {
        this.#release();
        this.#opened = { key, promise: explainer.open(/** @type {any} */ (input), { signal }) };
        this.#opened.promise.catch(() => {});
      }
      const photo = await this.#opened.promise;
      const contrast = this.getAttribute('contrast');
      const spec = contrast ? { class: classOf(this), contrast } : classOf(this);
      const result = await photo.explain({
        targets: [spec], methods: methodsOf(this), startLayer: startLayerOf(this), signal,
      });
      if (generation !== this.#generation) return this.#result;
      this.#result = result;
      this.#shown = { photo, explainer };
      await this.#render();
      this.#fillControls();
      this.#emit('explained', result);
      return result;
    } catch (err) {
      if (signal.aborted || generation !== this.#generation) return this.#result;
      if (this.#opened && !(await this.#opened.promise.then(() => true, () => false))) this.#opened = null;
      // A model that failed to load is loaded again by the next run (a broken download resumes).
      if (this.#explainer && !(await this.#explainer.promise.then(() => true, () => false))) this.#explainer = null;
      const message = err?.message ?? String(err);
      this.#status(message, 'error');
      this.#emit('error', { message });
      throw err;
    }
  }

  /** @param {string} text @param {'busy' | 'done' | 'error'} state */
  #status(text, state) {
    this.#caption.className = state === 'error' ? 'error' : 'status';
    this.#caption.textContent = text;
    this.#internals.ariaInvalid = state === 'error' ? 'true' : null;
    this.dataset.state = state;
  }

  // Draws every method's map of the first target over the photo (or as the text), from the kept maps.
  async #render() {
    if (!this.#result) return;
    const [core, draw] = await Promise.all([loadRenderer(), drawerOf(this.#result)]);
    const { tiles, caption } = draw(core, this, /** @type {any} */ ({ result: this.#result, ...this.#shown }));
    this.#maps.style.setProperty('--columns', String(Math.max(1, Math.min(tiles.length, 3))));
    this.#maps.replaceChildren(...tiles);
    this.#status(caption, 'done');
    this.#internals.ariaLabel = tiles.at(-1)?.querySelector('[aria-label]')?.getAttribute('aria-label') ?? null;
    this.dataset.rendered = String(Number(this.dataset.rendered ?? 0) + 1);
  }

  #fillControls() { fillControls(this.#controls, this, this.#result && { result: this.#result, explainer: this.#shown.explainer }); }
}

if (!customElements.get('vit-relevance')) customElements.define('vit-relevance', VitRelevanceElement);
