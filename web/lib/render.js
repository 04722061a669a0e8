// Relevance map → coloured heat image and legend, by the WebAssembly core (runtime/core.js):
// the colour scale (positive: min-max; signed: 0 in the middle of the diverging rdbu
// colormap, runtime/map-scale.js), optional threshold, bilinear upsampling ("smooth") or one block
// per patch ("patch grid"), colormap. The page composes the result over the photo.

// Returns an ImageData: the coloured map, pixels the threshold removes transparent, at the
// smooth size (bilinear) or the map's own (patch grid: the canvas scales its blocks up).
// The core draws it (core.renderHeat: one heat image for every view, the CLI and Node).
// `scale`: 'positive' (default) or 'signed', already resolved (map-scale.js scaleFor).
export function heatImage(core, map, { colormap, threshold, display, scale = 'positive' }) {
  const sampling = display === 'smooth' ? 'bilinear' : 'patch_grid';
  const heat = core.renderHeat(map.data, map.shape[0], map.shape[1], { scale, colormap, threshold, sampling });
  return new ImageData(heat.data, heat.width, heat.height);
}

// The legend strip: 256×1 pixels of the colormap the scale draws with, low on the left.
export function legendImage(core, colormap, scale = 'positive') {
  const rgba = core.legend(core.colormapFor(scale, colormap));
  return new ImageData(new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength), 256, 1);
}
