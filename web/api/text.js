// @ts-check
// A text opened on a text model (the API's Text, typed in web/vit-relevance.js): checked
// here, tokenized, predicted and explained in the Worker (web/worker/texts.js), which keeps
// it between explanations as it keeps a photo: other classes, methods and start layers
// reuse its tensors. Its tokens, offsets, words and prediction are known after the first
// explain(), as a photo's prediction is. Its own script (web/api-text.js) that the API
// loads on a text's first open, so a page that explains photos never downloads it; the
// image ids it takes from the API's one counter (./photo.js), which the API passes in.
import { REQUEST, REPLY, replyOf } from '../lib/protocol.js';
/** @import { Reply, RequestBody } from '../lib/protocol.js' */
import { checkText } from 'vit-relevance/runtime/text-input.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resolveStartLayer, textTarget } from 'vit-relevance/runtime/explain-request.js';
import { abortError } from './photo.js';

const now = () => performance.now();
const keyOf = (t) => `${t.class}|${t.contrast}`;

export class KeptText {
  /** @type {import('./worker-client.js').WorkerClient} */
  #client;
  #model;
  #imageId = null;
  #analyzing = null;
  #nextImageId;

  // model: the explainer's { modelKey, metadata, methods, method, backend, backendNote, prepare };
  // nextImageId: the page's image ids (photos and texts share them in the Worker).
  /** @param {() => number} nextImageId */
  constructor(client, model, text, nextImageId) {
    this.#client = client;
    this.#nextImageId = nextImageId;
    this.#model = model;
    this.text = checkText(text);
    /** @type {string[] | null} */ this.tokens = null;
    /** @type {number[] | null} */ this.ids = null;
    /** @type {[number, number][] | null} */ this.offsets = null;
    /** @type {string[] | null} */ this.words = null;
    /** @type {{ tokens: number, at: number } | null} */ this.truncated = null;
    /** @type {string | null} */ this.notice = null;
    /** @type {import('vit-relevance/runtime/explain-types.js').ClassProbability[] | null} */ this.top5 = null;
    /** @type {Float32Array | null} */ this.logits = null;
  }

  /**
   * A request to the Worker → its replies; stale (aborted, or the text released) throws.
   * @template {RequestBody['type']} T
   * @param {T} type @param {Omit<Extract<RequestBody, { type: T }>, 'type'>} body
   * @param {{ signal?: AbortSignal, onEvent?: (msg: Reply) => void }} [options]
   * @returns {Promise<Reply[]>}
   */
  async #ask(type, body, { signal, onEvent } = {}) {
    const r = await this.#client.request(type, body, { signal, onEvent });
    if (r.stale === true) throw signal?.aborted ? abortError() : new Error('the text was released');
    return r.replies;
  }

  // Tokens, prediction and the predicted class's maps, once per text.
  async #analyze(methods, startLayer, signal) {
    const imageId = this.#nextImageId();
    /** @param {Reply} msg */
    const onEvent = (msg) => {
      if (msg.type === REPLY.TOKENS) Object.assign(this, { tokens: msg.tokens, ids: msg.ids, offsets: msg.offsets, words: msg.words, truncated: msg.truncated, notice: msg.notice });
      if (msg.type === REPLY.PREDICTION) {
        this.#imageId = imageId;
        this.top5 = top5Of(this.#model.metadata, msg.top5);
        this.logits = msg.logits;
      }
    };
    const replies = await this.#ask(REQUEST.ANALYZE_TEXT, { modelKey: this.#model.modelKey, imageId, text: this.text, methods, startLayer }, { signal, onEvent });
    return replyOf(replies, REPLY.MAPS);
  }

  /** @param {import('vit-relevance/runtime/explain-types.js').ExplainOptions} [options] */
  async explain({ targets, methods, startLayer = 0, signal } = {}) {
    const { metadata } = this.#model;
    const wanted = resolveTargets(metadata, targets);
    const list = checkMethods(methods, this.#model.methods);
    const start = resolveStartLayer(metadata, startLayer);
    const started = now();
    const timings = /** @type {any} */ ({});
    const results = new Map();
    /** @param {import('../lib/protocol.js').MapsReply} msg */
    const keep = (msg) => { for (const r of msg.results) results.set(keyOf(r.target), r); Object.assign(timings, msg.timings); };
    while (this.#imageId === null) {
      if (!this.#analyzing) this.#analyzing = this.#analyze(list, start, signal).finally(() => { this.#analyzing = null; });
      keep(await this.#analyzing);
    }
    const all = withPredicted(wanted, /** @type {any} */ (this.top5)[0].id);
    const missing = all.filter((t) => !results.has(keyOf(t)));
    if (missing.length) {
      const replies = await this.#ask(REQUEST.EXPLAIN, { imageId: this.#imageId, targets: missing, methods: list, startLayer: start }, { signal });
      keep(replyOf(replies, REPLY.MAPS));
    }
    timings.totalMs = now() - started;
    const notes = [this.#model.backendNote, this.notice].filter(Boolean);
    return {
      top5: this.top5,
      targets: all.map((t) => {
        const r = results.get(keyOf(t));
        return textTarget(metadata, t, r.maps, r.wordMaps, list, this.logits);
      }),
      text: this.text,
      tokens: this.tokens,
      ids: this.ids,
      offsets: this.offsets,
      words: this.words,
      truncated: this.truncated,
      region: null,
      width: null,
      height: null,
      timings,
      backend: this.#model.backend,
      notes,
    };
  }

  // Self-Attention Attribution of the text (as a photo's: web/api/photo.js), block by block.
  /** @param {import('../vit-relevance.js').AttributeOptions} options */
  async attribute(options) {
    const { attribute } = await import('../api-attribute.js');
    const analysed = async (signal) => {
      if (this.#imageId === null) await this.explain({ signal });
      return /** @type {number} */ (this.#imageId);
    };
    return attribute({ model: this.#model, analysed, request: (body, o) => this.#ask(REQUEST.ATTRIBUTE, /** @type {any} */ (body), o), top5: () => this.top5 }, options);
  }

  // Plain forward passes on the text, timed inside the Worker (ms each): a diagnostic, for
  // an explainer loaded with prepare: true (its plain forward graph).
  /** @param {number} [runs] @returns {Promise<number[]>} */
  async timeForward(runs = 5) {
    if (!this.#model.prepare) throw new Error('timeForward needs an explainer loaded with prepare: true (its plain forward graph)');
    if (this.#imageId === null) await this.explain();
    return replyOf(await this.#ask(REQUEST.BENCH, { imageId: this.#imageId, runs }), REPLY.BENCH).times;
  }

  // Frees the text's tensors in the Worker.
  close() {
    if (this.#imageId !== null) this.#client.request(REQUEST.RELEASE, { imageId: this.#imageId }).catch(() => {});
    this.#imageId = null;
  }
}
