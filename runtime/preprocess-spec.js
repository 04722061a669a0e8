// @ts-check
// Model metadata "preprocess" block (docs/architecture.md) → the flat spec the core's
// preprocess binding reads (wasm/preprocess_bindings.cpp). Sizes in the metadata are
// [height, width], as torchvision takes them.
//   { resize: { mode: 'short_side', size: 256 } | { mode: 'exact', size: [h, w] | n } | { mode: 'none' },
//     crop: { mode: 'center', size: [h, w] | n } | null, interpolation, mean, std,
//     exact_size_passthrough }
// Accepts the whole metadata object too (then the model input size is checked against
// architecture.image_size by core.preprocess).
// options.crop: 'center' (the metadata's framing, the default) or 'none' (the whole photo
// resized to the input size); the core applies it (with_crop_mode, src/preprocess).

const hw = (size, what) => {
  const [h, w] = Array.isArray(size) ? size : [size, size];
  if (!Number.isInteger(h) || !Number.isInteger(w)) throw new Error(`${what} must be an integer or [height, width], got ${JSON.stringify(size)}`);
  return [h, w];
};

/** @param {any} metadataOrPreprocess @param {{ crop?: string }} [options] */
export function preprocessSpec(metadataOrPreprocess, { crop } = {}) {
  const pre = metadataOrPreprocess?.preprocess ?? metadataOrPreprocess;
  if (!pre || typeof pre !== 'object') throw new Error('preprocess spec missing: pass metadata.preprocess');
  const spec = {};
  const resize = pre.resize ?? { mode: 'none' };
  spec.resizeMode = resize.mode ?? 'short_side';
  if (spec.resizeMode === 'short_side') {
    spec.resizeSize = resize.size;
  } else if (spec.resizeMode === 'exact') {
    [spec.resizeHeight, spec.resizeWidth] = hw(resize.size, 'preprocess.resize.size');
  }
  const box = pre.crop;
  spec.centerCrop = Boolean(box) && box.mode !== 'none';
  if (spec.centerCrop) {
    if (box.mode !== undefined && box.mode !== 'center') throw new Error(`preprocess.crop.mode "${box.mode}" is not supported (center, none)`);
    [spec.cropHeight, spec.cropWidth] = hw(box.size, 'preprocess.crop.size');
  }
  if (pre.interpolation !== undefined) spec.interpolation = pre.interpolation;
  if (pre.mean !== undefined) spec.mean = pre.mean;
  if (pre.std !== undefined) spec.std = pre.std;
  if (pre.exact_size_passthrough !== undefined) spec.exactSizePassthrough = pre.exact_size_passthrough;
  if (crop !== undefined) spec.cropMode = crop;
  return spec;
}

// [height, width] the model takes, when the argument says (metadata.architecture.image_size,
// or an image_size / inputSize field next to the preprocess block); else null.
export function expectedInputSize(metadataOrPreprocess) {
  const m = metadataOrPreprocess ?? {};
  return m.architecture?.image_size ?? m.image_size ?? m.inputSize ?? null;
}
