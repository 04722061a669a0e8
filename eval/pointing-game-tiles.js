// @ts-check
// The input of one grid-pointing-game mosaic: each photo preprocessed as the model would,
// at 1/grid of the input size (resize and crop divided by grid: DeiT's short side 256 /
// crop 224 become 128 / 112 for a 2×2 mosaic), the tiles placed row by row (top-left,
// top-right, bottom-left, bottom-right), then the whole input normalised with the model's
// mean and std. Environment-neutral: the caller decodes the photos and owns the core.

const divide = (size, grid, what) => {
  const [h, w] = Array.isArray(size) ? size : [size, size];
  const out = [h / grid, w / grid].map(Math.round);
  if (out.some((v) => v < 1)) throw new Error(`${what} ${JSON.stringify(size)} is too small for a ${grid}×${grid} mosaic`);
  return out;
};

// The tile rectangles in input pixels, in mosaic order.
export function tileRects([H, W], grid = 2) {
  if (H % grid || W % grid) throw new Error(`a ${W}x${H} input does not split into ${grid}×${grid} equal tiles`);
  const [h, w] = [H / grid, W / grid];
  return Array.from({ length: grid * grid }, (_, k) => ({ x: (k % grid) * w, y: Math.floor(k / grid) * h, width: w, height: h }));
}

// metadata.preprocess at 1/grid scale (the tile's own resize and crop).
export function tilePreprocess(preprocess, grid = 2) {
  const resize = preprocess.resize ?? { mode: 'none' };
  let tileResize = resize;
  if (resize.mode === 'short_side' || resize.mode === undefined) {
    tileResize = { ...resize, size: Math.round(resize.size / grid) };
  } else if (resize.mode === 'exact') {
    tileResize = { ...resize, size: divide(resize.size, grid, 'preprocess.resize.size') };
  }
  const crop = preprocess.crop && preprocess.crop.mode !== 'none'
    ? { ...preprocess.crop, size: divide(preprocess.crop.size, grid, 'preprocess.crop.size') }
    : preprocess.crop;
  return { ...preprocess, resize: tileResize, crop };
}

// One tile's RGBA (tileWidth × tileHeight × 4, before normalisation). A photo at exactly the
// model's input size is passed through by the model's own preprocessing (when its metadata
// says so), so here it is shrunk whole, not cropped: the tile shows what the model would see.
export function tilePixels(core, photo, metadata, grid = 2) {
  const [H, W] = metadata.architecture.image_size;
  const [tileH, tileW] = [H / grid, W / grid];
  const pre = metadata.preprocess;
  const passthrough = (pre.exact_size_passthrough ?? true) && photo.width === W && photo.height === H;
  const spec = passthrough
    ? { ...pre, resize: { mode: 'exact', size: [tileH, tileW] }, crop: null, exact_size_passthrough: false }
    : tilePreprocess(pre, grid);
  const tile = core.preprocess(photo.rgba, photo.width, photo.height, spec);
  if (tile.width !== tileW || tile.height !== tileH) {
    throw new Error(`the tile preprocessing gives ${tile.width}x${tile.height}, a ${grid}×${grid} mosaic of a ${W}x${H} input needs ${tileW}x${tileH} tiles`);
  }
  return tile.rgba;
}

// Tiles (RGBA, tileWidth × tileHeight each, in mosaic order) → one RGBA image grid times wider
// and higher.
export function placeTiles(tiles, tileWidth, tileHeight, grid = 2) {
  if (tiles.length !== grid * grid) throw new Error(`a ${grid}×${grid} mosaic takes ${grid * grid} tiles, got ${tiles.length}`);
  const width = tileWidth * grid;
  const out = new Uint8Array(width * tileHeight * grid * 4);
  const rowBytes = tileWidth * 4;
  tiles.forEach((tile, k) => {
    if (tile.length !== rowBytes * tileHeight) throw new Error(`tile ${k + 1} holds ${tile.length} bytes, expected ${tileWidth}x${tileHeight} RGBA`);
    const x0 = (k % grid) * tileWidth;
    const y0 = Math.floor(k / grid) * tileHeight;
    for (let y = 0; y < tileHeight; y++) {
      out.set(tile.subarray(y * rowBytes, (y + 1) * rowBytes), ((y0 + y) * width + x0) * 4);
    }
  });
  return out;
}

// The normalised model input of a mosaic. photos: decoded { rgba, width, height } in mosaic
// order. → { data: Float32Array [3·H·W], rgba, rects }
export function mosaicInput(core, photos, metadata, grid = 2) {
  const [H, W] = metadata.architecture.image_size;
  const rects = tileRects([H, W], grid);
  const rgba = placeTiles(photos.map((p) => tilePixels(core, p, metadata, grid)), W / grid, H / grid, grid);
  // No resize and no crop: only the model's normalisation, by the same code as every input.
  const normalise = { ...metadata.preprocess, resize: { mode: 'none' }, crop: null };
  const { data } = core.preprocess(rgba, W, H, normalise);
  return { data, rgba, rects };
}
