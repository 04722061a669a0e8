// @ts-check
// A ground-truth mask brought into the model's input frame, so it lines up pixel for pixel
// with a map at the input size. The mask may have another size than its photo (same
// aspect ratio): the region of the photo the model saw (core.preprocess(...).region, photo
// pixels) is scaled into mask pixels, and core.maskInModelFrame samples it to W × H.
// Environment-neutral.

// Decoded RGBA → 0/1 per pixel: any non-zero colour value is foreground. Greyscale masks
// decode to R = G = B, so this reads their one channel; a palette mask whose foreground
// colour has no red still counts.
export function binaryMask(rgba, width, height) {
  const n = width * height;
  if (rgba.length !== n * 4) throw new Error(`mask data holds ${rgba.length} bytes, expected ${width}x${height} RGBA`);
  const mask = new Uint8Array(n);
  for (let i = 0; i < n; i++) mask[i] = rgba[4 * i] || rgba[4 * i + 1] || rgba[4 * i + 2] ? 1 : 0;
  return mask;
}

// Whether a maskWidth × maskHeight mask can be a scaled copy of a photo: the same aspect
// ratio up to rounding (half a pixel per side) or 2 %.
export function sameAspect(photoWidth, photoHeight, maskWidth, maskHeight) {
  const cross = Math.abs(maskWidth * photoHeight - maskHeight * photoWidth);
  return cross <= Math.max(0.5 * (photoWidth + photoHeight), 0.02 * maskWidth * photoHeight);
}

// The photo region in whole mask pixels (edges rounded, at least one pixel a side). It may
// reach outside the mask where the preprocessing pads the photo.
export function regionInMask(region, photoWidth, photoHeight, maskWidth, maskHeight) {
  const sx = maskWidth / photoWidth;
  const sy = maskHeight / photoHeight;
  const x = Math.round(region.x * sx);
  const y = Math.round(region.y * sy);
  const width = Math.max(1, Math.round((region.x + region.width) * sx) - x);
  const height = Math.max(1, Math.round((region.y + region.height) * sy) - y);
  return { x, y, width, height };
}

// The mask grown with background so that `rect` lies inside it. → { mask, width, height, rect }
export function padToRect(mask, width, height, rect) {
  const left = Math.max(0, -rect.x);
  const top = Math.max(0, -rect.y);
  const outWidth = Math.max(width, rect.x + rect.width) + left;
  const outHeight = Math.max(height, rect.y + rect.height) + top;
  if (!left && !top && outWidth === width && outHeight === height) return { mask, width, height, rect };
  const out = new Uint8Array(outWidth * outHeight);
  for (let y = 0; y < height; y++) out.set(mask.subarray(y * width, (y + 1) * width), (y + top) * outWidth + left);
  return { mask: out, width: outWidth, height: outHeight, rect: { ...rect, x: rect.x + left, y: rect.y + top } };
}

// mask: 0/1 Uint8Array (binaryMask); photo: { width, height } of the photo it belongs to;
// region: that photo's preprocess region; [H, W]: the model's input size. → Uint8Array H·W
export function maskInModelFrame(core, mask, maskWidth, maskHeight, photo, region, [H, W]) {
  if (!sameAspect(photo.width, photo.height, maskWidth, maskHeight)) {
    throw new Error(`the mask is ${maskWidth}x${maskHeight}, its photo ${photo.width}x${photo.height}: a mask must have the photo's aspect ratio`);
  }
  const rect = regionInMask(region, photo.width, photo.height, maskWidth, maskHeight);
  const padded = padToRect(mask, maskWidth, maskHeight, rect);
  return core.maskInModelFrame(padded.mask, padded.width, padded.height, padded.rect, W, H);
}
