// @ts-check
// Node-only: the input of `vit-relevance explain`, a photo or a .npy tensor, turned into
// what the explainer and the overlays need:
//   { pixels: Float32Array(3·H·W), photo: { rgba, width, height }, region, source, exif, crop }
// Photos go through the core's preprocess (metadata.preprocess, incl. exact-size
// passthrough); `region` is where the model input sits in the photo, so the overlays
// are drawn at the photo's own resolution. A .npy is already normalised: it skips
// preprocessing and its overlay background is the tensor un-normalised.
import { readNpyFile } from './npy-file.js';
import { decodeImage } from './image.js';

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

// exif: 'use' or 'ignore', a photo's EXIF orientation (./image.js); crop: 'center' or
// 'none' (core.cropModeIds); both reported back for photos (null for a tensor).
export async function loadExplainInput(file, metadata, core, { exif = 'use', crop = 'center' } = {}) {
  const [H, W] = metadata.architecture.image_size;
  const { mean, std } = metadata.preprocess;
  if (isNpyPath(file)) {
    const pixels = checkInputTensor(await readNpyFile(file), [H, W], file);
    return {
      pixels,
      photo: { rgba: tensorToRgba(pixels, W, H, mean, std), width: W, height: H },
      region: { x: 0, y: 0, width: W, height: H },
      source: 'tensor',
      exif: null,
      crop: null,
    };
  }
  const photo = await decodeImage(file, { exif });
  // Given the whole metadata, the core also checks the result against image_size.
  const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata, { crop });
  return { pixels: pre.data, photo, region: pre.region, source: pre.passthrough ? 'photo (exact size, normalised only)' : 'photo', exif, crop };
}
