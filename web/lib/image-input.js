// Turns a user's file (or a sample) into a photo the page can show and analyse: decoded
// with its EXIF orientation applied (unless the user asks for the stored pixels), checked
// for sizes the page cannot use, and scaled down only when it is too large to handle
// comfortably in a browser tab.

import { headerSize, HEADER_BYTES } from './image-header.js';
// By path, not package name: web/decode-worker.js loads this module, and a Worker has no import map.
import { isPng, pngNeedsOwnDecoder } from '../../runtime/png-header.js';

export const MIN_SIDE = 16;             // one 16×16 patch; smaller photos carry no layout
export const MAX_ANALYSIS_SIDE = 4096;  // larger photos are scaled down (memory of a tab)
// Larger photos are refused from their stated size, before any pixel is decoded: the
// browser decodes a photo whole before it scales it (4 bytes a pixel, 600 MB here), and
// a 1.2 MB PNG can state 20000×20000 (1.6 GB).
export const MAX_PIXELS = 150_000_000;

export class ImageInputError extends Error {}

const IMAGE_NAME = /\.(png|jpe?g|gif|webp|bmp|avif|ico|svg)$/i;

// The oriented size, read without decoding every pixel (the <img> element decodes lazily).
// A Worker has no <img>: there the photo is decoded once to read it.
async function orientedSize(url, blob) {
  if (typeof Image === 'undefined') {
    const bitmap = await createImageBitmap(blob, { imageOrientation: 'from-image' }).catch(() => {
      throw new ImageInputError('could not decode');
    });
    const size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
    return size;
  }
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve({ width: img.naturalWidth, height: img.naturalHeight });
    img.onerror = () => reject(new ImageInputError('could not decode'));
    img.src = url;
  });
}

// createImageBitmap on this thread: → { bitmap }.
const decodeHere = async (blob, options) => ({ bitmap: await createImageBitmap(blob, options) });

// Returns { bitmap, width, height, original: {width, height}, name } and whatever else
// `decode` gives (the page's ./photo-decoder.js adds `copies` and `rgba`). exif: 'use'
// applies the EXIF orientation (what a person sees), 'ignore' keeps the stored pixels
// (PIL's reading, ./exif-orientation.js).
export async function readPhoto(blob, name = blob.name || 'photo', { exif = 'use', decode = decodeHere } = {}) {
  if (blob.type && !blob.type.startsWith('image/')) {
    throw new ImageInputError(`“${name}” is not an image (${blob.type}). Choose a PNG, JPEG, WebP or GIF photo.`);
  }
  if (!blob.type && !IMAGE_NAME.test(name)) {
    throw new ImageInputError(`“${name}” does not look like an image. Choose a PNG, JPEG, WebP or GIF photo.`);
  }
  if (blob.size === 0) throw new ImageInputError(`“${name}” is empty.`);
  if (exif === 'ignore') {
    // loaded only for this choice, as the PNG decoder below: the element's scripts are smaller
    const { withoutOrientation } = await import('./exif-orientation.js');
    blob = new Blob([withoutOrientation(new Uint8Array(await blob.arrayBuffer()))], { type: blob.type });
  }
  const head = new Uint8Array(await blob.slice(0, HEADER_BYTES).arrayBuffer());
  const stated = headerSize(head);
  if (stated) checkPixels(stated, name);
  // colorSpaceConversion 'none': an embedded ICC profile is ignored, as PIL in the official
  // pipeline ignores it (and the CLI's decoder), so the model sees the stored values.
  const options = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' };
  // A photo whose header states a size the page takes as it is is decoded at once. Any
  // other (a format without a size here, a photo to scale down, one too small, pixels
  // that belie the header, a failed decode) goes through the size probe below, which
  // says what is wrong.
  if (fitsAsIs(stated)) {
    let decoded = null;
    try {
      decoded = await decode(await pilDecoded(blob, head) ?? blob, options);
    } catch { /* the probe's path says what is wrong */ }
    if (decoded && fitsAsIs(decoded.bitmap)) return photoOf(decoded, null, name);
    release(decoded);
  }
  const url = URL.createObjectURL(blob);
  let size;
  try {
    size = await orientedSize(url, blob);
  } catch {
    throw new ImageInputError(`“${name}” could not be decoded: the file is damaged or not an image format this browser reads.`);
  } finally {
    URL.revokeObjectURL(url);
  }
  const { width, height } = size;
  if (!width || !height) throw new ImageInputError(`“${name}” has no pixels.`);
  checkPixels(size, name);
  if (width < MIN_SIDE || height < MIN_SIDE) {
    throw new ImageInputError(`“${name}” is only ${width}×${height} px. The model reads ${MIN_SIDE}×${MIN_SIDE} patches: use a photo at least ${MIN_SIDE} px on each side.`);
  }
  const scale = Math.min(1, MAX_ANALYSIS_SIDE / Math.max(width, height));
  if (scale < 1) {
    options.resizeWidth = Math.max(1, Math.round(width * scale));
    options.resizeHeight = Math.max(1, Math.round(height * scale));
    options.resizeQuality = 'high';
  }
  let decoded;
  try {
    decoded = await decode(await pilDecoded(blob, head) ?? blob, options);
  } catch (err) {
    throw new ImageInputError(`“${name}” (${width}×${height} px) could not be decoded: ${err.message || 'out of memory?'}`);
  }
  return photoOf(decoded, size, name);
}

function checkPixels({ width, height }, name) {
  const count = (n) => n.toLocaleString('en-US');
  if (width * height > MAX_PIXELS) {
    throw new ImageInputError(`“${name}” is ${width}×${height} = ${count(width * height)} pixels, more than the ${count(MAX_PIXELS)} `
      + 'a browser tab decodes here: scale it down first.');
  }
}

// Whether a size is one the page analyses without scaling it down.
const fitsAsIs = (size) => Boolean(size) && Math.min(size.width, size.height) >= MIN_SIDE
  && Math.max(size.width, size.height) <= MAX_ANALYSIS_SIDE;

function photoOf(decoded, original, name) {
  const { width, height } = decoded.bitmap;
  return { ...decoded, width, height, original: original ?? { width, height }, name };
}

function release(decoded) {
  decoded?.bitmap.close?.();
  for (const copy of decoded?.copies ?? []) copy.close();
}

// A PNG with alpha, tRNS or 16-bit samples as PIL's convert('RGB') reads it (opaque
// ImageData), since the canvas would lose the colour under transparent pixels; null for
// every other photo, which the browser decodes. (Such a PNG's eXIf orientation is not
// applied: PIL's reading.)
async function pilDecoded(blob, head) {
  if (!isPng(head)) return null;
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (!pngNeedsOwnDecoder(bytes)) return null;
  // Loaded only for such a PNG: the element's scripts are smaller without it.
  const { decodePng } = await import('../png-decode.js');
  const { rgba, width, height } = await decodePng(bytes);
  return new ImageData(rgba, width, height);
}

// RGBA bytes of a bitmap (the layout the core's preprocess takes).
export function rgbaOf(bitmap) {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  return ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
}
