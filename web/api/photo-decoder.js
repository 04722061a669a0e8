// The page's side of web/decode-worker.js: createImageBitmap's work (decode, scale, RGBA
// read-back, a small copy for tiles) in a Worker of its own, so no main-thread task grows
// with the photo's size. Shaped as image-input.js's `decode` option.
// The sizes the views draw at (long side, px): the single view, the pair view's tiles,
// the grid's tiles.
export const VIEW_SIDES = [2048, 640, 320];

let worker = null;
let nextId = 1;
const pending = new Map();

// url: web/decode-worker.js where the API's script finds it (web/lib/site-files.js).
function decoder(url) {
  if (worker) return worker;
  worker = new Worker(url, { type: 'module' });
  worker.onmessage = ({ data }) => {
    const p = pending.get(data.id);
    pending.delete(data.id);
    if (data.error) p?.reject(new Error(data.error));
    else p?.resolve(data);
  };
  worker.onerror = (e) => {
    e.preventDefault?.();
    for (const p of pending.values()) p.reject(new Error(`the decoding worker failed: ${e.message || 'could not start'}`));
    pending.clear();
    worker = null;
  };
  return worker;
}

// → { bitmap, copies (one per VIEW_SIDES), rgba }
export function decodeOffThread(blob, options, url) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    decoder(url).postMessage({ id, blob, options, sides: VIEW_SIDES });
  });
}
