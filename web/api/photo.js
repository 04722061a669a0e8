// @ts-check
// A photo the Worker keeps between explanations (the API's Photo, typed in
// web/vit-relevance.js): other targets, methods and start layers reuse its tensors (and
// with the split graphs, a class switch runs the target graph alone). Photos opened from
// the same URL on the same model are one photo, counted: the last close() frees it.
import { REQUEST, REPLY, replyOf } from '../lib/protocol.js';
/** @import { Reply, RequestBody } from '../lib/protocol.js' */
import { decodeImage } from './image-source.js';
import { rgbaOf } from '../lib/image-input.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resultTarget, contrastBlocker, resolveStartLayer } from 'vit-relevance/runtime/explain-request.js';

const now = () => performance.now();
export const abortError = () => new DOMException('the request was aborted', 'AbortError');
let lastImageId = 0;
// The Worker's ids of photos and texts (web/api/text.js), one sequence.
export const nextImageId = () => ++lastImageId;
// The Worker's photo id → the Photo that holds it (its notices name the id).
const byImageId = new Map();
export const photoOfImageId = (id) => byImageId.get(id) ?? null;

export class KeptPhoto {
  /** @type {import('./worker-client.js').WorkerClient} */
  #client;
  #model;
  #imageId = null;
  #decoded;
  #crop;
  #analyzing = null;
  #refs = 1;
  #onFree;
  // model: the explainer's { modelKey, metadata, methods, method, backend, backendNote, prepare };
  // decoded: web/api/image-source.js's; crop: the model's input ('center' or 'none').
  /** @param {import('./worker-client.js').WorkerClient} client @param {any} model @param {any} decoded
   * @param {{ crop?: 'center' | 'none', onFree?: () => void }} [options] */
  constructor(client, model, decoded, { crop = 'center', onFree = () => {} } = {}) {
    this.#client = client;
    this.#model = model;
    this.#decoded = decoded;
    this.#crop = crop;
    this.#onFree = onFree;
    this.name = decoded.name;
    this.width = decoded.width;
    this.height = decoded.height;
    this.original = decoded.original ?? { width: decoded.width, height: decoded.height };
    this.bitmap = decoded.bitmap;
    this.copies = decoded.copies ?? [];
    this.top5 = null;
    this.logits = null;
    this.region = null;
  }

  retain() {
    this.#refs++;
    return this;
  }

  /**
   * A request to the Worker → its replies; stale (aborted, or the photo released) throws.
   * @template {RequestBody['type']} T
   * @param {T} type @param {Omit<Extract<RequestBody, { type: T }>, 'type'>} body
   * @param {{ signal?: AbortSignal, transfer?: Transferable[], onEvent?: (msg: Reply) => void }} [options]
   * @returns {Promise<Reply[]>}
   */
  async #ask(type, body, { signal, transfer = [], onEvent } = {}) {
    const r = await this.#client.request(type, body, { signal, transfer, onEvent });
    if (r.stale === true) throw signal?.aborted ? abortError() : new Error('the photo was released');
    return r.replies;
  }

  // Preprocess, prediction and the predicted class's maps, once per photo. A prepared
  // explainer (the page) runs the explainer graph, which predicts and explains at once,
  // and the Worker keeps the photo's tensors when idle; otherwise the photo graph predicts
  // and is kept at once (no background run competing with the next embed's photo), and
  // attention-only methods need no target graph. The photo counts as analysed from its
  // prediction on: the Worker holds it then, even if the caller stops waiting.
  async #analyze(methods, startLayer, signal, onPrediction) {
    const imageId = nextImageId();
    // The decoder's bytes go to the Worker; an analysis again reads them back from the bitmap.
    const rgba = this.#decoded.rgba ?? rgbaOf(this.bitmap);
    this.#decoded.rgba = null;
    /** @param {Reply} msg */
    const onEvent = (msg) => {
      if (msg.type !== REPLY.PREDICTION) return;
      this.#imageId = imageId;
      byImageId.set(imageId, this);
      this.top5 = top5Of(this.#model.metadata, msg.top5);
      this.logits = msg.logits; // every explained class's standing
      this.region = msg.region;
      onPrediction?.({ top5: this.top5, logits: this.logits, region: this.region, predictedBy: msg.predictedBy, timings: msg.timings });
    };
    const replies = await this.#ask(REQUEST.ANALYZE, {
      modelKey: this.#model.modelKey, imageId, rgba: rgba.buffer, width: this.width, height: this.height,
      methods, startLayer, photoGraph: !this.#model.prepare, crop: this.#crop,
    }, { signal, transfer: [rgba.buffer], onEvent });
    return { prediction: replyOf(replies, REPLY.PREDICTION), maps: replyOf(replies, REPLY.MAPS) };
  }

  // A contrast leaves out the methods that cannot contrast, and says so in `notes`; when
  // none of them can, nothing runs and the error says why.
  #contrastNotes(wanted, list) {
    if (!wanted.some((t) => t.contrast !== undefined)) return [];
    const blocked = list.map((m) => contrastBlocker(this.#model.method(m))).filter(Boolean);
    if (blocked.length === list.length) {
      const able = this.#model.methods.filter((m) => this.#model.method(m).contrast);
      throw new Error(`${blocked.join('; ')}. Choose a method that can: ${able.join(', ')}`);
    }
    return blocked.map((why) => `${why}, so it is left out`);
  }

  /** @param {import('../vit-relevance.js').PhotoExplainOptions} [options] */
  async explain({ targets, methods, startLayer = 0, signal, onPrediction } = {}) {
    const { metadata } = this.#model;
    const wanted = resolveTargets(metadata, targets);
    const list = checkMethods(methods, this.#model.methods);
    const notes = this.#contrastNotes(wanted, list);
    startLayer = resolveStartLayer(metadata, startLayer);
    // The Worker's maps replies fill in modelMs and relevanceMs.
    const timings = /** @type {import('../vit-relevance.js').BrowserExplainResult['timings']} */ ({});
    const started = now();
    const results = new Map();
    /** @param {import('../lib/protocol.js').MapsReply} msg */
    const keep = (msg) => { for (const r of msg.results) results.set(`${r.target.class}|${r.target.contrast}`, r.maps); Object.assign(timings, msg.timings); };
    while (this.#imageId === null) {
      if (this.#analyzing) {
        // Another caller's analysis of this photo: wait for it (or retry if it was aborted).
        await this.#analyzing.catch(() => {});
        if (signal?.aborted) throw abortError();
        continue;
      }
      this.#analyzing = this.#analyze(list, startLayer, signal, onPrediction);
      try {
        const { prediction, maps } = await this.#analyzing;
        timings.preprocessMs = prediction.timings.preprocessMs;
        keep(maps);
      } finally {
        this.#analyzing = null;
      }
    }
    const all = withPredicted(wanted, this.top5[0].id);
    const missing = all.filter((t) => !results.has(`${t.class}|${t.contrast}`));
    if (missing.length) {
      const replies = await this.#ask(REQUEST.EXPLAIN, { imageId: this.#imageId, targets: missing, methods: list, startLayer }, { signal });
      keep(replyOf(replies, REPLY.MAPS));
    }
    timings.totalMs = now() - started;
    return {
      top5: this.top5,
      targets: all.map((t) => resultTarget(metadata, t, results.get(`${t.class}|${t.contrast}`), list, this.logits)),
      region: this.region,
      width: this.width,
      height: this.height,
      timings,
      backend: this.#model.backend, // the one that ran
      // why that backend where another was asked for (the explainer's note), then what the
      // maps leave out
      notes: this.#model.backendNote ? [this.#model.backendNote, ...notes] : notes,
    };
  }

  // The photo's id in the Worker, analysing it first where needed.
  async #analysed(signal) {
    if (this.#imageId === null) await this.explain({ signal });
    return /** @type {number} */ (this.#imageId);
  }

  // Self-Attention Attribution, block by block (web/api/attribute.js, loaded on demand).
  /** @param {import('../vit-relevance.js').AttributeOptions} options */
  async attribute(options) {
    const { attribute } = await import('../api-attribute.js');
    return attribute({ model: this.#model, analysed: (signal) => this.#analysed(signal), request: (body, o) => this.#ask(REQUEST.ATTRIBUTE, /** @type {any} */ (body), o), top5: () => this.top5 }, options);
  }

  // Plain forward passes on the photo, timed inside the Worker (ms each): a diagnostic.
  /** @param {number} [runs] @returns {Promise<number[]>} */
  async timeForward(runs = 5) {
    if (!this.#model.prepare) throw new Error('timeForward needs an explainer loaded with prepare: true (its plain forward graph)');
    const imageId = await this.#analysed();
    return replyOf(await this.#ask(REQUEST.BENCH, { imageId, runs }), REPLY.BENCH).times;
  }

  // Frees the photo's tensors in the Worker once its last holder closes it.
  close() {
    if (--this.#refs > 0) return;
    if (this.#imageId !== null) {
      byImageId.delete(this.#imageId);
      this.#client.request(REQUEST.RELEASE, { imageId: this.#imageId }).catch(() => {});
    }
    this.#imageId = null;
    this.#onFree();
  }
}

// A photo decoded once (decodePhoto), to open on any explainer: its RGBA bytes go to the
// first Worker that analyses it; later ones read them back from the bitmap.
export class DecodedPhoto {
  #rgba;
  /** @param {{ name: string, width: number, height: number, original?: { width: number, height: number }, bitmap: ImageBitmap, copies?: ImageBitmap[], rgba?: Uint8ClampedArray | null }} decoded */
  constructor({ name, width, height, original, bitmap, copies, rgba }) {
    this.name = name;
    this.width = width;
    this.height = height;
    this.original = original ?? { width, height };
    this.bitmap = bitmap;
    this.copies = copies ?? [];
    this.#rgba = rgba ?? null;
  }

  // The decoded fields KeptPhoto takes, the bytes handed over once.
  /** @param {DecodedPhoto | KeptPhoto} photo */
  static fields(photo) {
    const rgba = photo instanceof DecodedPhoto ? photo.#rgba : null;
    if (photo instanceof DecodedPhoto) photo.#rgba = null;
    const { name, width, height, original, bitmap, copies } = photo;
    return { name, width, height, original, bitmap, copies, rgba };
  }
}

const checkOption = (name, value, allowed) => {
  if (!allowed.includes(value)) throw new Error(`${name} must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${JSON.stringify(value)}`);
};

/**
 * @param {{ decoder: URL }} site
 * @param {import('../vit-relevance.js').BrowserImage} image
 * @param {{ exif?: 'use' | 'ignore', signal?: AbortSignal }} [options]
 */
export async function decodePhoto(site, image, { exif = 'use', signal } = {}) {
  checkOption('exif', exif, ['use', 'ignore']);
  return new DecodedPhoto(await decodeImage(image, { signal, exif, decoder: site.decoder }));
}

// `${modelKey}|${backendNote}|${absolute URL}|${crop}|${exif}` → promise of the Photo every
// opener of that URL shares. The note is in the key because a photo's results carry it:
// explainers of one model differ in it only where one asked for a backend the page cannot
// run (WebGPU without an adapter), and then each gets its own photo.
const byUrl = new Map();

/**
 * @param {import('./worker-client.js').WorkerClient} client
 * @param {any} model the explainer's (KeptPhoto's constructor)
 * @param {import('../vit-relevance.js').BrowserImage} image
 * @param {import('../vit-relevance.js').OpenOptions} [options]
 * @returns {Promise<KeptPhoto>}
 */
export function openPhoto(client, model, image, { crop = 'center', exif = 'use', signal } = {}) {
  checkOption('crop', crop, ['center', 'none']);
  checkOption('exif', exif, ['use', 'ignore']);
  if (image instanceof DecodedPhoto || image instanceof KeptPhoto) {
    return Promise.resolve(new KeptPhoto(client, model, DecodedPhoto.fields(image), { crop }));
  }
  if (typeof image !== 'string' && !(image instanceof URL)) {
    return decodeImage(image, { signal, exif }).then((decoded) => new KeptPhoto(client, model, decoded, { crop }));
  }
  const url = new URL(String(image), globalThis.document?.baseURI ?? globalThis.location?.href).href;
  const key = `${model.modelKey}|${model.backendNote ?? ''}|${url}|${crop}|${exif}`;
  let shared = byUrl.get(key);
  if (shared) return shared.then((photo) => photo.retain());
  // Decoded without the opener's signal: a second opener may still want it.
  shared = decodeImage(image, { exif }).then((decoded) => new KeptPhoto(client, model, decoded, { crop, onFree: () => byUrl.delete(key) }));
  byUrl.set(key, shared);
  shared.catch(() => byUrl.delete(key));
  return shared;
}
