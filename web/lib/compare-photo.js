// The compare view's second photo: read, analysed and explained on the page's Worker for
// the class and method the first photo shows. Its requests never supersede the first
// photo's (they queue beside them), so both maps arrive.
import { readPhoto, rgbaOf } from './image-input.js';
import { decodeOffThread } from './photo-decoder.js';
import { REQUEST, REPLY } from './protocol.js';

export class ComparePhoto {
  // engine(): the page's current Engine; onChange(): redraw; onError(message).
  constructor({ engine, nextImageId, onChange, onError }) {
    this.engine = engine;
    this.nextImageId = nextImageId;
    this.onChange = onChange;
    this.onError = onError;
    this.photo = null;   // { imageId, bitmap, width, height, name }
    this.region = null;
    this.logits = null;
    this.maps = new Map(); // same keys as the first photo's: `${target}|${startLayer}`
    this.source = null;
  }

  // The shape the page draws from (as for the first photo).
  get view() { return { photo: this.photo, region: this.region, maps: this.maps }; }

  async set(blob, name, { exif = 'use' } = {}) {
    let photo;
    try {
      photo = await readPhoto(blob, name, { exif, decode: decodeOffThread });
    } catch (err) {
      return this.onError(err.message);
    }
    this.release();
    this.source = { blob, name }; // read again when the EXIF setting changes
    this.photo = { ...photo, name, imageId: this.nextImageId() };
    this.onChange();
  }

  // Forgets what was computed on the photo (kept: the photo itself).
  reset() {
    this.region = null;
    this.logits = null;
    this.maps.clear();
  }

  release() {
    if (this.photo) {
      this.engine()?.request(REQUEST.RELEASE, { imageId: this.photo.imageId }).catch(() => {});
      this.photo.bitmap.close?.();
      for (const c of this.photo.copies ?? []) c.close();
    }
    this.photo = null;
    this.reset();
  }

  // Makes sure the map of `method` for `target` exists; redraws when it arrives.
  async ensure({ modelKey, target, targetKey, method, startLayer, crop }) {
    const photo = this.photo;
    const engine = this.engine();
    if (!photo || !engine) return;
    const key = `${targetKey}|${startLayer}`;
    const want = `${photo.imageId}|${key}|${method}`;
    if (this.maps.get(key)?.[method] || this.inflight === want) return;
    this.inflight = want;
    try {
      if (!this.region) {
        const rgba = photo.rgba ?? rgbaOf(photo.bitmap); // the decoder's bytes, handed over once
        photo.rgba = null;
        const r = await engine.request(REQUEST.ANALYZE, {
          modelKey, imageId: photo.imageId, rgba: rgba.buffer, width: photo.width, height: photo.height, methods: [method], startLayer, crop,
        }, { transfer: [rgba.buffer] });
        if (r.stale || photo !== this.photo) return;
        ({ region: this.region, logits: this.logits } = r.replies.find((m) => m.type === REPLY.PREDICTION));
      }
      const r = await engine.request(REQUEST.EXPLAIN, { imageId: photo.imageId, targets: [target], methods: [method], startLayer });
      if (r.stale || photo !== this.photo) return;
      const { results } = r.replies.find((m) => m.type === REPLY.MAPS);
      this.maps.set(key, { ...this.maps.get(key), ...results[0].maps });
      this.onChange();
    } catch (err) {
      if (photo === this.photo) this.onError(`Could not explain ${photo.name}: ${err.message}`);
    } finally {
      if (this.inflight === want) this.inflight = null;
    }
  }
}

// The second photo's chooser: a sample from the list, or a file. onChoose(blob, name).
export function bindComparePicker({ select, browse, fileInput, onChoose, onError }) {
  select.addEventListener('change', async () => {
    const name = select.value;
    if (!name) return;
    try {
      const response = await fetch(`samples/${encodeURIComponent(name)}`);
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      onChoose(await response.blob(), name);
    } catch (err) {
      onError(`Could not load the sample ${name}: ${err.message}`);
    }
  });
  browse.addEventListener('click', () => fileInput.click());
  fileInput.addEventListener('change', () => {
    const file = fileInput.files[0];
    fileInput.value = '';
    if (!file) return;
    select.value = '';
    onChoose(file, file.name || 'photo');
  });
  return {
    setSamples(names) { select.append(...names.map((n) => new Option(n, n))); },
    // Picks a sample as if chosen from the list (a link's photo2).
    choose(name) { select.value = name; select.dispatchEvent(new Event('change')); },
  };
}
