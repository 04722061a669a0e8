// Draws a photo with a heat image over the region of it the model saw, at a chosen
// canvas size, and maps pointer positions back to map cells for the hover readout.

// Canvas (width, height) for a photo scaled so its long side is at most `maxSide`.
export function fitSize(width, height, maxSide) {
  const s = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * s)), height: Math.max(1, Math.round(height * s)), scale: s };
}

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

// photo: { bitmap, width, height }; region: crop box in photo pixels; heat: ImageData or null.
export function drawOverlay(canvas, photo, region, heat, { opacity, smooth, maxSide }) {
  const { width, height, scale } = fitSize(photo.width, photo.height, maxSide);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    canvas.style?.setProperty('--ar', String(width / height)); // OffscreenCanvas has no style
  }
  const ctx = canvas.getContext('2d');
  ctx.globalAlpha = 1;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(photo.bitmap, 0, 0, width, height);
  if (!heat || !region) return;
  ctx.globalAlpha = opacity;
  ctx.imageSmoothingEnabled = smooth;
  ctx.drawImage(sourceOf(heat), region.x * scale, region.y * scale, region.width * scale, region.height * scale);
  ctx.globalAlpha = 1;
  // The model's view: a thin frame when it is not the whole photo.
  if (region.x > 0.5 || region.y > 0.5 || region.width < photo.width - 1 || region.height < photo.height - 1) {
    ctx.strokeStyle = 'rgba(255,255,255,.8)';
    ctx.setLineDash([6, 4]);
    ctx.lineWidth = Math.max(1, width / 400);
    ctx.strokeRect(region.x * scale, region.y * scale, region.width * scale, region.height * scale);
    ctx.setLineDash([]);
  }
}

// The map cell under a pointer event, or null outside the model's region.
export function cellAt(event, canvas, photo, region, map) {
  const rect = canvas.getBoundingClientRect();
  const px = ((event.clientX - rect.left) / rect.width) * photo.width;
  const py = ((event.clientY - rect.top) / rect.height) * photo.height;
  const u = (px - region.x) / region.width;
  const v = (py - region.y) / region.height;
  if (!(u >= 0 && u < 1 && v >= 0 && v < 1)) return null;
  const row = Math.floor(v * map.rows);
  const col = Math.floor(u * map.cols);
  return { row, col, value: map.data[row * map.cols + col] };
}
