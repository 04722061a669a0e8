// Whatever an author passes as a photo (a URL, Blob/File, ImageBitmap, <img>, ImageData)
// → { bitmap, width, height, rgba, name, original?, copies? }: decoded as the page decodes
// a file (EXIF orientation unless exif is 'ignore', no colour conversion), with an error
// naming the photo when it fails. With `decoder` (web/decode-worker.js's URL), a Blob is
// decoded off the main thread (./photo-decoder.js), with smaller copies for drawing.
import { readPhoto, rgbaOf } from '../lib/image-input.js';
import { decodeOffThread } from './photo-decoder.js';

async function fetchPhoto(url, signal) {
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (err) {
    if (err?.name === 'AbortError') throw err;
    throw new Error(`could not load the photo ${url}: ${err.message}`);
  }
  if (!response.ok) throw new Error(`could not load the photo ${url}: HTTP ${response.status}`);
  return response.blob();
}

// What a photo URL is called in messages: its file name, never a piece of a data: URL's
// content (a data: URL's "last path segment" is whatever follows its last slash).
function photoName(url) {
  const { protocol, pathname } = new URL(url);
  if (protocol === 'data:') return 'data: URL';
  const file = pathname.split('/').pop();
  try {
    return decodeURIComponent(file) || url;
  } catch {
    return file;
  }
}

/** @param {any} image @param {{ signal?: AbortSignal, exif?: 'use' | 'ignore', decoder?: URL }} [options] */
export async function decodeImage(image, { signal, exif = 'use', decoder } = {}) {
  const base = globalThis.document?.baseURI ?? globalThis.location?.href;
  if (typeof image === 'string' || image instanceof URL) {
    const url = new URL(String(image), base).href;
    const blob = await fetchPhoto(url, signal);
    const photo = await readPhoto(blob, photoName(url), { exif });
    return { ...photo, rgba: rgbaOf(photo.bitmap) };
  }
  if (globalThis.Blob && image instanceof Blob) {
    const decode = decoder ? (blob, options) => decodeOffThread(blob, options, decoder) : undefined;
    const photo = await readPhoto(image, image.name || 'photo', { exif, decode });
    return { ...photo, rgba: photo.rgba ?? rgbaOf(photo.bitmap) };
  }
  if (globalThis.ImageData && image instanceof ImageData) {
    const bitmap = await createImageBitmap(image);
    return { bitmap, width: image.width, height: image.height, rgba: new Uint8ClampedArray(image.data), name: 'image data' };
  }
  if (globalThis.HTMLImageElement && image instanceof HTMLImageElement) {
    try {
      await image.decode();
    } catch {
      throw new Error(`the image ${image.currentSrc || image.src} could not be decoded`);
    }
  } else if (!(globalThis.ImageBitmap && image instanceof ImageBitmap)) {
    throw new Error('image must be a URL, Blob/File, ImageBitmap, HTMLImageElement or ImageData');
  }
  const bitmap = image instanceof ImageBitmap ? image : await createImageBitmap(image);
  return { bitmap, width: bitmap.width, height: bitmap.height, rgba: rgbaOf(bitmap), name: image.src ?? 'bitmap' };
}
