// Relevance map → coloured heat image, by the WebAssembly core (runtime/core.js):
// the colour scale (positive: min-max; signed: 0 in the middle of the diverging rdbu
// colormap, runtime/map-scale.js), optional threshold, bilinear upsampling ("smooth") or one block
// per patch ("patch grid"), colormap. The page composes the result over the photo.

// Size the smooth view is computed at (the model's input grid × patch size); the canvas
// scales it onto the photo region.
const SMOOTH_SIDE = 224;

// Normalised map (and threshold mask applied) at the map's own resolution.
export function normalizedMap(core, map, threshold, scale = 'positive') {
  const map01 = core.scaled(map.data, scale);
  if (threshold === 'none') return { map01, mask: null };
  return { map01, mask: core.threshold(map01, map.rows, map.cols, threshold) };
}

// Returns an ImageData: the coloured map; pixels the threshold removes are transparent.
// `scale`: 'positive' (default) or 'signed', already resolved (map-scale.js scaleFor).
export function heatImage(core, map, { colormap, threshold, display, scale = 'positive' }) {
  let { rows, cols } = map;
  let { map01, mask } = normalizedMap(core, map, threshold, scale);
  const smooth = display === 'smooth' && (rows < SMOOTH_SIDE || cols < SMOOTH_SIDE);
  if (smooth) {
    const outRows = Math.max(rows, SMOOTH_SIDE);
    const outCols = Math.max(cols, SMOOTH_SIDE);
    map01 = core.upsample(map01, rows, cols, outRows, outCols);
    // The threshold acts on the smooth map, as the paper's segmentation does.
    if (mask) mask = core.threshold(map01, outRows, outCols, threshold);
    rows = outRows;
    cols = outCols;
  }
  const rgba = core.colorize(map01, rows, cols, core.colormapFor(scale, colormap));
  const image = new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), cols, rows);
  if (mask) for (let i = 0; i < mask.length; i++) if (!(mask[i] > 0)) image.data[i * 4 + 3] = 0;
  return image;
}

// The legend strip: 256×1 pixels of the colormap the scale draws with, low on the left.
export function legendImage(core, colormap, scale = 'positive') {
  const rgba = core.legend(core.colormapFor(scale, colormap));
  return new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), 256, 1);
}
