// Draws a photo with a heat image over the region of it the model saw, at a chosen
// canvas size, and maps pointer positions back to map cells for the hover readout.
// Two frames: 'photo' shows the whole photo with what lies outside the model's region
// dimmed (the model never saw it); 'model' shows the region alone, zoomed: the model's
// input (black where the crop pads past the photo, as torchvision pads).

// Canvas (width, height) for a photo scaled so its long side is at most `maxSide`.
export function fitSize(width, height, maxSide) {
  const s = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)), scale: s };
}

// Share of the photo's brightness left outside the model's region in the 'photo' frame.
export const OUTSIDE_BRIGHTNESS = 0.35;

// Cache of ImageData → canvas, so redraws at a new opacity do not re-upload pixels.
const sources = new WeakMap();
function sourceOf(image) {
  let c = sources.get(image);
  if (!c) {
    c = new OffscreenCanvas(image.width, image.height);
    c.getContext('2d').putImageData(image, 0, 0);
    sources.set(image, c);
  }
  return c;
}

// Whether the region leaves part of the photo out (the centre crop of a non-square photo).
export function cropsPhoto(photo, region) {
  return region.x > 0.5 || region.y > 0.5 || region.width < photo.width - 1 || region.height < photo.height - 1;
}

// The model's view is upscaled to at least this long side, so a 224 crop is readable.
const MODEL_VIEW_SIDE = 448;

// photo: { bitmap, width, height, copies? (smaller copies of bitmap, largest first) };
// region: crop box in photo pixels; heat: ImageData or null; frame: 'photo' | 'model'
// (needs a region).
export function drawOverlay(canvas, photo, region, heat, { opacity, smooth, maxSide, frame = 'photo' }) {
  const model = frame === 'model' && region;
  const box = model ? region : { x: 0, y: 0, width: photo.width, height: photo.height };
  const side = model ? Math.max(MODEL_VIEW_SIDE, Math.max(box.width, box.height)) : Math.max(box.width, box.height);
  const { width, height } = fitSize(box.width * (side / Math.max(box.width, box.height)),
    box.height * (side / Math.max(box.width, box.height)), maxSide);
  const scale = width / box.width; // canvas px per photo px
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style?.setProperty('--ar', String(width / height)); // OffscreenCanvas has no style
  }
  const ctx = canvas.getContext('2d');
  ctx.globalAlpha = 1;
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, width, height);
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  // The photo placed so that `box` fills the canvas. Scaling a large bitmap down while
  // drawing is slow (a second of main thread for a grid of 4096 px photos): draw the
  // smallest copy that is not smaller than the drawn photo.
  const drawnWidth = photo.width * scale;
  const source = (photo.copies ?? []).findLast((c) => c.width >= drawnWidth) ?? photo.bitmap;
  ctx.drawImage(source, -box.x * scale, -box.y * scale, drawnWidth, photo.height * scale);
  if (!region) return;
  const r = { x: (region.x - box.x) * scale, y: (region.y - box.y) * scale, w: region.width * scale, h: region.height * scale };
  if (!model && cropsPhoto(photo, region)) {
    // Everything outside the region darkened (even-odd: the canvas minus the region).
    ctx.fillStyle = `rgba(0,0,0,${1 - OUTSIDE_BRIGHTNESS})`;
    ctx.beginPath();
    ctx.rect(0, 0, width, height);
    ctx.rect(r.x, r.y, r.w, r.h);
    ctx.fill('evenodd');
    ctx.strokeStyle = 'rgba(255,255,255,.8)';
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = Math.max(1, width / 400);
    ctx.strokeRect(r.x, r.y, r.w, r.h);
    ctx.setLineDash([]);
  }
  if (!heat) return;
  ctx.globalAlpha = opacity;
  ctx.imageSmoothingEnabled = smooth;
  ctx.drawImage(sourceOf(heat), r.x, r.y, r.w, r.h);
  ctx.globalAlpha = 1;
}

// The map cell under a pointer event, or null outside the model's region.
export function cellAt(event, canvas, photo, region, map, frame = 'photo') {
  const rect = canvas.getBoundingClientRect();
  const fx = (event.clientX - rect.left) / rect.width;
  const fy = (event.clientY - rect.top) / rect.height;
  const u = frame === 'model' ? fx : (fx * photo.width - region.x) / region.width;
  const v = frame === 'model' ? fy : (fy * photo.height - region.y) / region.height;
  if (!(u >= 0 && u < 1 && v >= 0 && v < 1)) return null;
  const [rows, cols] = map.shape;
  const row = Math.floor(v * rows);
  const col = Math.floor(u * cols);
  return { row, col, value: map.data[row * cols + col] };
}
