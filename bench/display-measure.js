// What a drawn signed map shows (bench/display-coverage.js, tests/node/display-scale.test.js):
//   visible   the share of pixels at least 48/255 from white in some channel;
//   |R| shown the share of Σ|R| that lies under those pixels;
//   top patch the share of the most positive patch's pixels (largest Σ R over the patch)
//             drawn visibly red: where the evidence is must stay in sight.
export const VISIBLE = 48;

// The three figures of one heat image (RGBA at the map's size) of a raw map.
export function measure(rgba, raw, [rows, cols], patch) {
  const gridCols = Math.ceil(cols / patch);
  const patchSums = new Float64Array(Math.ceil(rows / patch) * gridCols);
  const patchOf = (k) => Math.floor(Math.floor(k / cols) / patch) * gridCols + Math.floor((k % cols) / patch);
  raw.forEach((v, k) => { patchSums[patchOf(k)] += v; });
  const top = patchSums.indexOf(Math.max(...patchSums));
  let visible = 0, shown = 0, mass = 0, topRed = 0, topCells = 0;
  raw.forEach((v, k) => {
    const [r, g, b] = rgba.subarray(4 * k, 4 * k + 3);
    const seen = 255 - Math.min(r, g, b) >= VISIBLE;
    mass += Math.abs(v);
    if (seen) { visible++; shown += Math.abs(v); }
    if (patchOf(k) === top) { topCells++; if (seen && r > b) topRed++; }
  });
  return [visible / raw.length, shown / mass, topRed / topCells];
}
