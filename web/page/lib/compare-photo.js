// The compare view's second photo: decoded once (the public API's decodePhoto), opened as
// an opened photo on the page's explainer (docs/glossary.md), analysed and explained for the class and method
// the first photo shows. Its requests never supersede the first photo's (they queue beside
// them), so both maps arrive.
import { decodePhoto } from '../../vit-relevance.js';

export class ComparePhoto {
  // explainer(): the page's current explainer (null while a model loads); onChange():
  // redraw; onError(message).
  constructor({ explainer, onChange, onError }) {
    this.explainer = explainer;
    this.onChange = onChange;
    this.onError = onError;
    this.photo = null;   // a DecodedPhoto
    this.opened = null;  // promise of the photo opened on the explainer (the API's Photo)
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
      photo = await decodePhoto(new File([blob], name, { type: blob.type }), { exif });
    } catch (err) {
      return this.onError(err.message);
    }
    this.release();
    this.source = { blob, name }; // read again when the EXIF setting changes
    this.photo = photo;
    this.onChange();
  }

  // Forgets what was computed on the photo (kept: the photo itself); the opened photo
  // ends (another model, another framing).
  reset() {
    this.opened?.then((opened) => opened.close(), () => {});
    this.opened = null;
    this.region = null;
    this.logits = null;
    this.maps.clear();
  }

  release() {
    this.reset();
    if (this.photo) {
      this.photo.bitmap.close?.();
      for (const c of this.photo.copies) c.close();
    }
    this.photo = null;
  }

  // Makes sure the map of `method` for `target` ({ class, contrast? }) exists; redraws when it arrives.
  async ensure({ target, targetKey, method, startLayer, crop }) {
    const photo = this.photo;
    const explainer = this.explainer();
    if (!photo || !explainer) return;
    const key = `${targetKey}|${startLayer}`;
    const want = `${key}|${method}`;
    if (this.maps.get(key)?.[method] || this.inflight === want) return;
    this.inflight = want;
    try {
      const opening = (this.opened ??= explainer.open(photo, { crop }));
      const opened = await opening;
      const spec = target.contrast === undefined ? target.class : target;
      const result = await opened.explain({ targets: [spec], methods: [method], startLayer });
      if (opening !== this.opened) return;
      ({ region: this.region, logits: this.logits } = opened);
      this.maps.set(key, { ...this.maps.get(key), [method]: result.targets[0].maps[method] });
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
