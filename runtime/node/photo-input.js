// @ts-check
// Node-only: what the Node API's open() reads, a photo or a tensor, as it is before the
// model's preprocessing (runtime/photo-cache.js preprocessPhoto, the one path):
//   { name, rgba, width, height, pixels, source, exif, crop }
// A photo (a file path, or its encoded bytes) is decoded (./image.js: EXIF orientation as
// `exif` says); a .npy file or { pixels } is already the model's normalised input: pixels
// holds it, and rgba is it un-normalised, the input's own size, for drawing the maps on.
import path from 'node:path';
import { readNpyFile } from './npy-file.js';
import { decodeImage, decodeImageBytes, EXIF_MODES } from './image.js';
import { preprocessPhoto } from '../photo-cache.js';

export function isNpyPath(file) {
  return /\.npy$/i.test(file);
}

// [3,H,W] or [1,3,H,W] matching the model input; anything else is a clear error.
export function checkInputTensor({ data, shape }, [H, W], file) {
  const dims = shape.length === 4 && shape[0] === 1 ? shape.slice(1) : shape;
  if (dims.length !== 3 || dims[0] !== 3 || dims[1] !== H || dims[2] !== W) {
    throw new Error(`${file}: input tensor has shape [${shape.join(',')}], the model takes [3,${H},${W}] or [1,3,${H},${W}] (already normalised)`);
  }
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(data[i])) throw new Error(`${file}: input tensor holds a non-finite value at index ${i}`);
  }
  return data;
}

// Normalised CHW back to displayable RGBA: x·std + mean, clamped to [0,1].
export function tensorToRgba(chw, width, height, mean, std) {
  const n = width * height;
  const rgba = new Uint8Array(n * 4);
  for (let c = 0; c < 3; c++) {
    for (let i = 0; i < n; i++) {
      const v = (chw[c * n + i] * std[c] + mean[c]) * 255;
      rgba[i * 4 + c] = Math.max(0, Math.min(255, Math.round(v)));
    }
  }
  for (let i = 0; i < n; i++) rgba[i * 4 + 3] = 255;
  return rgba;
}

const CROPS = ['center', 'none'];

// What decodePhoto gives, known to open() by its class (as the browser's DecodedPhoto).
export class DecodedPhoto {
  /** @param {Partial<DecodedPhoto>} fields */
  constructor(fields) {
    /** @type {string | null} the file's name (null for bytes or { pixels }) */
    this.name = fields.name ?? null;
    /** @type {'photo' | 'tensor'} a photo, or the model's normalised input already (.npy, { pixels }) */
    this.source = fields.source ?? 'photo';
    /** @type {Uint8Array | null} a photo's RGBA bytes */
    this.rgba = fields.rgba ?? null;
    /** @type {number | null} */
    this.width = fields.width ?? null;
    /** @type {number | null} */
    this.height = fields.height ?? null;
    /** @type {{ data: Float32Array, shape: number[] | null, file?: string } | null} a tensor's values (shape null
     * for { pixels }) and the file that held them, as given (errors name it) */
    this.tensor = fields.tensor ?? null;
    /** @type {'use' | 'ignore' | null} */
    this.exif = fields.exif ?? null;
  }
}

/**
 * A photo read once (a file path, a .npy file, encoded bytes or { pixels }), to open on any
 * explainer: the Node API's decodePhoto, as the browser's. exif: 'use' (default) or 'ignore'.
 * @param {string | Uint8Array | { pixels: Float32Array } | DecodedPhoto} image
 * @param {{ exif?: 'use' | 'ignore' }} [options]
 * @returns {Promise<DecodedPhoto>}
 */
export async function decodePhoto(image, { exif = 'use' } = {}) {
  if (image instanceof DecodedPhoto) return image;
  if (!EXIF_MODES.includes(exif)) throw new Error(`exif must be 'use' or 'ignore', got ${JSON.stringify(exif)}`);
  if (image && typeof image === 'object' && 'pixels' in image) return new DecodedPhoto({ source: 'tensor', tensor: { data: image.pixels, shape: null } });
  if (typeof image === 'string' && isNpyPath(image)) {
    const { data, shape } = await readNpyFile(image);
    return new DecodedPhoto({ name: path.basename(image), source: 'tensor', tensor: { data: /** @type {any} */ (data), shape, file: image } });
  }
  let decoded;
  if (typeof image === 'string') decoded = await decodeImage(image, { exif });
  else if (image instanceof Uint8Array) decoded = await decodeImageBytes(image, 'the image buffer', { exif });
  else throw new Error('image must be a file path (a photo or a .npy tensor), a Buffer / Uint8Array of an encoded photo, or { pixels: Float32Array }');
  return new DecodedPhoto({ name: typeof image === 'string' ? path.basename(image) : null, ...decoded, exif });
}

/**
 * A decoded photo with what one model reads: pixels (normalised, 3·H·W), the region of
 * the photo the model saw (a tensor: all of it), source ('photo', 'photo (exact size,
 * normalised only)' or 'tensor'), crop (null for a tensor); rgba, width and height the
 * photo (a tensor: its input un-normalised), for drawing its maps on. `metadata`: the
 * model's it was prepared for: open() on that model's explainer takes it as it is (the
 * CLI prepares a photo before the graph loads, so a wrong input fails in seconds).
 * @typedef {{ name: string | null, rgba: Uint8Array, width: number, height: number, pixels: Float32Array,
 *   region: import('../explain-types.js').Region, source: string, exif: 'use' | 'ignore' | null,
 *   crop: 'center' | 'none' | null, metadata: object }} PreparedFields
 */
export class PreparedPhoto {
  /** @param {PreparedFields} fields */
  constructor({ name, rgba, width, height, pixels, region, source, exif, crop, metadata }) {
    /** @type {PreparedFields['name']} */ this.name = name;
    /** @type {PreparedFields['rgba']} */ this.rgba = rgba;
    /** @type {number} */ this.width = width;
    /** @type {number} */ this.height = height;
    /** @type {PreparedFields['pixels']} */ this.pixels = pixels;
    /** @type {PreparedFields['region']} */ this.region = region;
    /** @type {string} */ this.source = source;
    /** @type {PreparedFields['exif']} */ this.exif = exif;
    /** @type {PreparedFields['crop']} */ this.crop = crop;
    /** @type {object} */ this.metadata = metadata;
  }
}

/**
 * The model's preprocessing of a decoded photo (preprocessPhoto, the one path), or a
 * tensor checked against the model's input. crop: 'center' (default) or 'none'.
 * @param {DecodedPhoto} decoded
 * @param {{ architecture: { image_size: number[] }, preprocess: { mean: number[], std: number[] } }} metadata
 * @param {any} core
 * @param {{ crop?: 'center' | 'none' }} [options]
 * @returns {PreparedFields}
 */
function prepared(decoded, metadata, core, { crop = 'center' } = {}) {
  if (!CROPS.includes(crop)) throw new Error(`crop must be 'center' or 'none', got ${JSON.stringify(crop)}`);
  const { name } = decoded;
  if (decoded.source === 'tensor') {
    const [H, W] = metadata.architecture.image_size;
    const { mean, std } = metadata.preprocess;
    const { data, shape, file } = decoded.tensor;
    const what = file ?? 'the pixels';
    if (crop !== 'center') throw new Error(`crop '${crop}' applies to photos; ${what} is already the model's input`);
    if (!(data instanceof Float32Array) || (!shape && data.length !== 3 * H * W)) {
      throw new Error(`${what} must be a Float32Array of 3×${H}×${W} = ${3 * H * W} normalised values (got ${data?.constructor?.name} of length ${data?.length})`);
    }
    const pixels = checkInputTensor({ data, shape: shape ?? [3, H, W] }, [H, W], what);
    return {
      name, rgba: tensorToRgba(pixels, W, H, mean, std), width: W, height: H, pixels,
      region: { x: 0, y: 0, width: W, height: H }, source: 'tensor', exif: null, crop: null, metadata,
    };
  }
  const { rgba, width, height } = decoded;
  const pre = preprocessPhoto(core, metadata, rgba, width, height, { crop });
  const source = pre.passthrough ? 'photo (exact size, normalised only)' : 'photo';
  return { name, rgba, width, height, pixels: pre.pixels.data, region: pre.region, source, exif: decoded.exif, crop, metadata };
}

/**
 * The photo as one model reads it: its preprocessing (preprocessPhoto, the one path), or a
 * tensor checked against its input; a photo prepared for this model already as it is.
 * @param {DecodedPhoto | PreparedPhoto} photo @param {any} metadata @param {any} core
 * @param {{ crop?: 'center' | 'none' }} [options]
 * @returns {PreparedPhoto}
 */
export function preparePhoto(photo, metadata, core, options) {
  if (photo instanceof PreparedPhoto) {
    if (photo.metadata !== metadata) throw new Error('the photo was prepared for another model: open its decoded photo instead');
    return photo;
  }
  return new PreparedPhoto(prepared(photo, metadata, core, options));
}
