// @ts-check
// <vit-relevance src="photo.jpg" class-id="bull mastiff" method="transformer_attribution">:
// a live, class-specific relevance map inside any page, built on the public API
// (vit-relevance.js). All elements of a page share one Worker and one session per model.
// Rendering attributes re-draw from the kept maps; the class, contrast, method and start
// layer re-explain the photo (a text model: the `text`, else the content) the Worker keeps.
// Parts by job in web/element/; `data-state` says where it is: busy, done or error.
import { loadExplainer, loadRenderer } from './vit-relevance.js';
import { ATTRIBUTES, LOADING, EXPLAINING, RENDERING, optionOf, classOf, methodsOf, startLayerOf } from './element/attributes.js';
import { drawerOf, loadElementText } from './element/drawing.js';
import { ElementProperties } from './element/properties.js';
import { fillControls } from './element/controls.js';
import { styleSheet } from './element/style.js';

/**
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

// Whether an element may explain a text (its text code then loads before the model): no
// photo, a text attribute, or content other than white space. Else it explains its photo.
/** @param {Element} el */
const mayHaveText = (el) => !el.getAttribute('src') || el.hasAttribute('text') || /\S/.test(el.textContent ?? '');

export class VitRelevanceElement extends ElementProperties {
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
  #content = null;     // watches the element's content (its text where it has no text attribute), once its text code loaded
  #textCode = null;    // web/element-text.js, once this element may explain a text
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

  connectedCallback() {
    if (this.#textCode) this.#watchContent(this.#textCode);
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
    this.#content = null;
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

  // The element's text code (web/element-text.js), and from then on its content watcher.
  async #loadTextCode() {
    this.#textCode ??= await loadElementText();
    this.#watchContent(this.#textCode);
    return this.#textCode;
  }

  /** @param {typeof import('./element-text.js')} textCode */
  #watchContent(textCode) {
    if (this.#content || !this.isConnected) return;
    this.#content = textCode.watchContent(this, () => this.#started && (!this.hasAttribute('src') || this.#opened?.key.startsWith('text:')) && this.#schedule('explain'));
  }

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
      // A text's checks (nothing to explain, a text too long: one line, nothing of the model
      // downloaded) come with the text code, which an element with a photo and no text skips.
      let text = mayHaveText(this) ? await this.#loadTextCode() : null;
      text?.checkSource(this);
      // The core that draws the maps loads while the model does: loaded after, it held the
      // first map back by its download and compile. A failure shows when the map is drawn.
      loadRenderer().catch(() => {});
      const explainer = await this.#loadExplainer(signal);
      if (explainer.kind === 'text') text ??= await this.#loadTextCode();
      const src = this.getAttribute('src');
      const { key, input } = text ? text.inputOf(this, explainer.kind) : { key: `src:${src}`, input: src };
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
