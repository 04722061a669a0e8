// @ts-check
// Node-only: the public API's explainer for an image model (runtime/node/index.js hands it
// an open explainer graph): open(image, { crop, exif }) reads and preprocesses a photo once
// (./photo-input.js) and keeps it for several explanations, as the browser's
// explainer.open does; explain(image, options) is open, explain, and the photo kept until
// another comes: asking again for the same photo (other classes, methods, start layers)
// reuses its tensors, and with the split graphs its first repeat caches its
// class-independent tensors, so each class after costs the class graph alone (a class
// switch, as in the page).
import { resolveClass } from '../targets.js';
import { graphMethodIds } from '../metadata.js';
import { createPhotoCache } from '../photo-cache.js';
import { resolveTargets, withPredicted, checkMethods, top5Of, resultTarget, resolveStartLayer } from '../explain-request.js';
import { kindMismatch } from '../text-metadata.js';
import { isTextInput } from '../text-input.js';
import { decodePhoto, preparePhoto, PreparedPhoto } from './photo-input.js';

/**
 * @import { ExplainOptions, ExplainResult, OpenOptions } from '../explain-types.js'
 */

const now = () => performance.now();

function abortIf(signal) {
  if (signal?.aborted) throw signal.reason ?? new DOMException('the request was aborted', 'AbortError');
}

// Photos are equal when the model sees the same pixels of the same region.
function samePhoto(a, b) {
  const [r, q] = [a.region, b.region];
  if (['x', 'y', 'width', 'height'].some((k) => r[k] !== q[k])) return false;
  const [p, o] = [a.pixels, b.pixels];
  if (p.length !== o.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== o[i]) return false;
  return true;
}

/**
 * explainer: an open explainer graph (runtime/explainer.js, with `engine`); core: the
 * core; metadata: its validated metadata.
 * @param {{ explainer: any, core: any, metadata: any }} options
 */
export function photoExplainer({ explainer, core, metadata }) {
  const photos = createPhotoCache({ explainer, core });
  const open = new Set(); // photos opened and not yet closed
  let last = null; // explain()'s last photo, kept until another comes

  // An opened photo's explanation: the predicted class comes from the same run as its maps
  // (a photo explained before knows it); a repeated photo first caches its class-independent
  // tensors (a failed caching leaves explain() the single graph).
  /** @param {any} kept @param {number} prepareMs @param {ExplainOptions} [options] */
  async function explainKept(kept, prepareMs, { targets, methods, startLayer = 0, signal } = {}) {
    const started = now() - prepareMs;
    const wanted = resolveTargets(metadata, targets);
    const list = checkMethods(methods, core.explainerMethodIds);
    const start = resolveStartLayer(metadata, startLayer);
    abortIf(signal);
    const { photo } = kept;
    const caching = kept.explained && !photo.cache ? photos.cachePhoto(photo) : null;
    const cachingMs = (caching && (await caching.catch(() => null))?.modelMs) ?? 0;
    const wantsPredicted = wanted.some((t) => t.class === null);
    const known = wantsPredicted && photo.logits ? photos.top5(photo)[0].id : null;
    const predicted = wantsPredicted && known === null ? await photos.predict(photo, { methods: list }) : null;
    abortIf(signal);
    const resolved = wantsPredicted ? withPredicted(wanted, predicted?.target.class ?? known) : wanted;
    const { results, timings } = await photos.explain(photo, resolved, { methods: list, startLayer: start });
    kept.explained = true;
    const top5 = top5Of(metadata, photos.top5(photo));
    Object.assign(kept.fields, { top5, logits: photo.logits });
    return /** @type {ExplainResult} */ ({
      top5,
      targets: results.map(({ target, maps }) => resultTarget(metadata, target, maps, list, photo.logits)),
      region: photo.region,
      width: kept.fields.width,
      height: kept.fields.height,
      timings: { preprocessMs: prepareMs, modelMs: cachingMs + (predicted?.modelMs ?? 0) + timings.modelMs, relevanceMs: timings.relevanceMs, totalMs: now() - started },
    });
  }

  // image → a kept photo: { fields (the API's Photo but its methods), photo (the cache's),
  // explained, prepareMs }.
  /** @param {any} image @param {OpenOptions} [options] */
  async function keep(image, { crop, exif, signal } = {}) {
    if (isTextInput(image)) throw new Error(kindMismatch(metadata, 'text'));
    abortIf(signal);
    const started = now();
    const ready = image instanceof PreparedPhoto ? image : await decodePhoto(image, { exif });
    const input = preparePhoto(ready, metadata, core, { crop });
    const photo = photos.pixelsPhoto(input.pixels, input.region);
    const { name, rgba, width, height, pixels, region, source } = input;
    const fields = { name, rgba, width, height, pixels, region, source, exif: input.exif, crop: input.crop };
    return { fields: { ...fields, top5: null, logits: null }, photo, explained: false, prepareMs: now() - started };
  }

  const self = {
    kind: 'image',
    metadata,
    methods: graphMethodIds(core, metadata), // attattr runs the attribution graphs (vit-relevance attribute)
    method: (id) => core.method(id),
    engine: explainer.engine,
    classId: (spec) => resolveClass(metadata, spec),
    label: (id) => metadata.labels[id],

    // → { top5, targets: [{ id, label, prob, rank, contrast?, maps }], region, width, height, timings }
    /** @param {any} image @param {ExplainOptions & OpenOptions} [options] */
    async explain(image, options = {}) {
      const opened = await keep(image, options);
      const kept = last && samePhoto(last.photo, opened.photo) ? last : opened;
      if (kept !== last) {
        if (last) photos.closePhoto(last.photo);
        last = kept;
      }
      try {
        return await explainKept(kept, opened.prepareMs, options);
      } catch (err) {
        if (last === kept) last = null;
        photos.closePhoto(kept.photo);
        throw err;
      }
    },

    // A photo read once for several explanations, as the browser's open(): its fields
    // (name, rgba, width, height, pixels, region, source, exif, crop; top5 and logits once
    // explained) and explain(options); close() frees its tensors.
    /** @param {any} image @param {OpenOptions} [options] */
    async open(image, options = {}) {
      const kept = await keep(image, options);
      open.add(kept);
      let prepareMs = kept.prepareMs;
      const opened = Object.assign(kept.fields, {
        /** @param {ExplainOptions} [explainOptions] */
        explain: async (explainOptions) => {
          if (!open.has(kept)) throw new Error('the photo was closed');
          const result = await explainKept(kept, prepareMs, explainOptions);
          prepareMs = 0; // read once
          return result;
        },
        close: () => {
          if (open.delete(kept)) photos.closePhoto(kept.photo);
        },
      });
      return opened;
    },

    close: () => {
      for (const kept of open) photos.closePhoto(kept.photo);
      open.clear();
      if (last) photos.closePhoto(last.photo);
      last = null;
      return photos.close();
    },
  };
  return self;
}
