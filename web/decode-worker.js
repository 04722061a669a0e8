// Decodes the page's photos off its main thread: an 8000×6000 photo took seconds of
// main-thread time to scale, read back as RGBA and draw (issue 13). Each request is
// { id, blob, options (createImageBitmap's), sides } → { id, bitmap, copies, rgba }: the
// bitmap the page analyses, copies of it at most sides[i] px long (what the views draw:
// scaling down while drawing is the slow part), and the bitmap's RGBA bytes for the
// inference Worker; or { id, error }.
import { rgbaOf } from './lib/image-input.js';

async function scaledCopy(bitmap, side) {
  const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
  return createImageBitmap(bitmap, {
    resizeWidth: Math.max(1, Math.round(bitmap.width * scale)),
    resizeHeight: Math.max(1, Math.round(bitmap.height * scale)),
    resizeQuality: 'high',
  });
}

self.onmessage = async ({ data: { id, blob, options, sides } }) => {
  try {
    const bitmap = await createImageBitmap(blob, options);
    const rgba = rgbaOf(bitmap);
    const copies = await Promise.all(sides.map((side) => scaledCopy(bitmap, side)));
    self.postMessage({ id, bitmap, copies, rgba }, [bitmap, ...copies, rgba.buffer]);
  } catch (err) {
    self.postMessage({ id, error: err?.message || String(err) });
  }
};
