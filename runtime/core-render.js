// @ts-check
// Rendering and preprocessing wrappers of runtime/core.js over src/render and
// src/preprocess. Maps are row-major Float32Arrays with rows x cols given alongside;
// images are RGBA bytes (canvas ImageData layout). Every check happens in the C++ core
// (InputError with its message); results are copies owned by JS.
//
// Rendering and preprocessing (runtime/core-render.js). Maps are row-major Float32Arrays
// (or { data, shape }); images are RGBA Uint8ClampedArrays (canvas ImageData layout).
//   core.colormapIds ['jet','viridis','inferno','turbo','gray','rdbu'], core.thresholdIds
//       ['none','mean','otsu'], core.blendModeIds ['alpha','notebook'],
//       core.mapSamplingIds ['bilinear','patch_grid'], core.cropModeIds ['center','none']
//   core.normalize(map, rows?, cols?)             → Float32Array min-max to [0,1] (constant → 0)
//   core.mapScaleIds ['positive','signed'] (src/render/map_scale.h)
//   core.scaled({ data, shape }, scale)           → Float32Array in [0,1]: a pixel map
//       smoothed, then positive = min-max, signed = v / (2p) + 0.5 clipped to [0,1], p the
//       97th percentile of |v| (0 in the middle; docs/display-scale.md)
//   core.colormapFor(scale, colormap)             → the colormap the scale draws with
//       (signed: 'rdbu', the diverging blue–white–red)
//   core.summarize({ data, shape }, scale)        → { min, max, negativeShare } of the raw
//       map and { low, high, clippedShare, smoothed }: the values at the colour scale's ends
//   core.upsample(map, rows, cols, outRows, outCols) → Float32Array, bilinear, align_corners=False
//   core.colorize(map01, rows, cols, colormap) or (map01, colormap) → RGBA Uint8ClampedArray
//   core.threshold(map01, rows, cols, mode) or (map01, mode) → Float32Array mask (1 = kept)
//   core.otsuLevel(map01)                         → 0..255
//   core.legend(colormap)                         → 256 x 1 RGBA, value 0 on the left
//   core.composite(rgba, width, height, map01, { colormap, mode, opacity }) → RGBA
//       (heatmap over an image of the map's size)
//   core.preprocess(rgba, width, height, spec, { crop }?) → { data: Float32Array [1,3,H,W] flat,
//       shape, pixels: { data, shape }, width, height, rgba (input before normalisation),
//       region: { x, y, width, height } of the photo the model saw, passthrough }
//       spec: metadata.preprocess, or the whole metadata (then the input size is checked
//       against architecture.image_size); crop: 'center' (the spec's framing, default) or
//       'none' (the whole photo resized to the input size, no crop)
//   core.inputRegion(width, height, spec, { crop }?) → that region without preprocessing
//   core.preprocessSpec(metadata, { crop }?)     → the flat spec the binding reads
//   core.renderHeat(map, rows, cols, { scale, colormap, sampling, threshold, width?, height? })
//       → { data: RGBA, width, height }: THE heat image every view draws (page, element,
//       render() in both APIs): the raw map on its scale, sampled ('bilinear' at 224 or the
//       map's size if finer; 'patch_grid' at the map's size), thresholded (removed pixels
//       transparent), coloured (src/render/heat_image.h)
//   core.overlayOnPhoto(rgba, width, height, map01, rows, cols, region,
//       { colormap, sampling, opacity, outsideDim, threshold }) → RGBA copy of the ORIGINAL
//       photo with the map drawn over `region` at full resolution (the inverse-mapped
//       overlay); threshold leaves the photo where renderHeat's image is transparent
import { preprocessSpec, expectedInputSize } from './preprocess-spec.js';
import { heapHelpers } from './core-heap.js';

export function renderApi(M) {
  const { heapFloats, heapBytes, using, floatsOut, bytesOut: u8Out, need } = heapHelpers(M);
  // images come back as canvas-ready Uint8ClampedArray
  const bytesOut = (b) => {
    const u8 = u8Out(b);
    return new Uint8ClampedArray(u8.buffer, u8.byteOffset, u8.byteLength);
  };
  const dataOf = (map) => (ArrayBuffer.isView(map) || Array.isArray(map) ? map : map?.data);
  const shapeOf = (map, rows, cols) => {
    if (Number.isInteger(rows) && Number.isInteger(cols)) return [rows, cols];
    if (map?.shape) return map.shape;
    return undefined;
  };
  const checkMap = (map, what) => {
    const data = dataOf(map);
    need(data && typeof data.length === 'number', `${what} must be a Float32Array (or { data, shape })`);
    return data;
  };
  const checkImage = (rgba, what) => {
    need(ArrayBuffer.isView(rgba), `${what} must be RGBA bytes (Uint8ClampedArray / Uint8Array)`);
    return rgba instanceof Uint8Array || rgba instanceof Uint8ClampedArray
      ? rgba : new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  };

  const colormapIds = Object.freeze([...M.colormapIds()]);
  const thresholdIds = Object.freeze(['none', ...M.thresholdIds()]);

  // (map01, rows, cols, colormap) or (map01, colormap)
  function colorize(map01, rows, cols, colormap) {
    if (typeof rows === 'string') colormap = rows;
    const data = checkMap(map01, 'colorize: map');
    return using([heapFloats(data)], (f) => bytesOut(M.applyColormap(f, colormap ?? 'jet')));
  }

  // (map01, rows, cols, mode) or (map01, mode) → Float32Array mask, 1 = kept.
  function threshold(map01, rows, cols, mode) {
    if (typeof rows === 'string') mode = rows;
    const data = checkMap(map01, 'threshold: map');
    if (mode === 'none') return new Float32Array(data.length).fill(1);
    return using([heapFloats(data)], (f) => floatsOut(M.binarize(f, mode)));
  }

  function composite(rgba, width, height, map01, options = {}) {
    const image = checkImage(rgba, 'composite: rgba');
    const data = checkMap(map01, 'composite: map');
    return using([heapBytes(image), heapFloats(data)], (b, f) =>
      bytesOut(M.compositeHeatmap(b, width, height, f, options)));
  }

  function preprocess(rgba, width, height, spec, options = {}) {
    const image = checkImage(rgba, 'preprocess: rgba');
    const out = using([heapBytes(image)], (b) => M.preprocessImage(b, width, height, preprocessSpec(spec, options)));
    const shape = [...out.chw.shape()];
    const data = floatsOut(out.chw);
    const input = bytesOut(out.rgba);
    const expected = expectedInputSize(spec);
    if (expected && (expected[0] !== out.height || expected[1] !== out.width)) {
      throw new Error(`preprocessing gives a ${out.width}x${out.height} input but the model takes ` +
        `${expected[1]}x${expected[0]}: check "preprocess" in the metadata`);
    }
    return {
      data, shape, pixels: { data, shape },
      width: out.width, height: out.height,
      rgba: input, region: out.region, passthrough: out.passthrough,
    };
  }

  // The heat image every view draws (src/render/heat_image.h): the raw map on its colour
  // scale, sampled, thresholded (removed pixels transparent), coloured. options: { scale,
  // colormap, sampling: 'bilinear'|'patch_grid', threshold, width, height (absent: the
  // smooth size for bilinear, the map's own for patch_grid) } → { data (RGBA), width, height }.
  function renderHeat(map, rows, cols, options = {}) {
    const data = checkMap(map, 'renderHeat: map');
    return using([heapFloats(data)], (f) => {
      const out = M.renderHeat(f, rows, cols, options);
      return { data: bytesOut(out.rgba), width: out.width, height: out.height };
    });
  }

  // A copy of the photo with the map drawn over `region` (core.preprocess(...).region);
  // options.threshold cuts it where renderHeat's image of the same map is transparent.
  function overlayOnPhoto(rgba, width, height, map01, rows, cols, region, options = {}) {
    const image = checkImage(rgba, 'overlayOnPhoto: rgba');
    const data = checkMap(map01, 'overlayOnPhoto: map');
    return using([heapBytes(image), heapFloats(data)], (b, f) => {
      M.drawMapOnPhoto(b, width, height, f, rows, cols, region, options);
      const u8 = b.view().slice();
      return new Uint8ClampedArray(u8.buffer);
    });
  }

  return {
    colormapIds,
    thresholdIds,
    blendModeIds: Object.freeze([...M.blendModeIds()]),
    mapSamplingIds: Object.freeze([...M.mapSamplingIds()]),
    cropModeIds: Object.freeze([...M.cropModeIds()]),
    // (map, rows?, cols?) → min-max to [0,1]; a constant map gives zeros.
    normalize: (map, rows, cols) =>
      using([heapFloats(checkMap(map, 'normalize: map'), shapeOf(map, rows, cols))], (f) => floatsOut(M.normalizeMinMax(f))),
    mapScaleIds: Object.freeze([...M.mapScaleIds()]),
    // ({ data, shape }, scale) → [0,1] for the colormap (src/render/map_scale.h): a pixel
    // map smoothed, then positive = min-max, signed = 0 in the middle, extremes clipped. A
    // bare array is one row (never smoothed).
    scaled: (map, scale = 'positive') =>
      using([heapFloats(checkMap(map, 'scaled: map'), shapeOf(map))], (f) => floatsOut(M.normalizeForScale(f, scale))),
    colormapFor: (scale, colormap = 'jet') => M.colormapForScale(scale, colormap),
    // ({ data, shape }, scale) → { min, max, negativeShare, low, high, clippedShare, smoothed }
    summarize: (map, scale = 'positive') =>
      using([heapFloats(checkMap(map, 'summarize: map'), shapeOf(map))], (f) => M.summarizeMap(f, scale)),
    // Bilinear, PyTorch align_corners=False.
    upsample: (map, rows, cols, outRows, outCols) =>
      using([heapFloats(checkMap(map, 'upsample: map'))], (f) => floatsOut(M.upsampleBilinear(f, rows, cols, outRows, outCols))),
    colorize,
    threshold,
    otsuLevel: (map01) => using([heapFloats(checkMap(map01, 'otsuLevel: map'))], (f) => M.otsuLevel(f)),
    // 256 x 1 RGBA, value 0 on the left.
    legend: (colormap = 'jet') => bytesOut(M.colormapLegend(colormap)),
    composite,
    preprocess,
    preprocessSpec,
    inputRegion: (width, height, spec, options = {}) => M.inputRegion(width, height, preprocessSpec(spec, options)),
    overlayOnPhoto,
    renderHeat,
  };
}
