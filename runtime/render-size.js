// @ts-check
// The size render() draws a map at without a photo, in both APIs (the browser's and
// Node's): its longest side `size` pixels, the other in the map's proportions. The default
// is the model's 224-pixel input, where the official notebooks draw the map.
export const RENDER_SIDE = 224;

/**
 * @param {number} rows @param {number} cols @param {number} size
 * @returns {{ width: number, height: number }}
 */
export function longSide(rows, cols, size) {
  if (!(Number.isInteger(size) && size >= 1 && size <= 16384)) throw new Error(`render: size must be an integer 1..16384, got ${size}`);
  const long = Math.max(rows, cols);
  return { width: Math.max(1, Math.round((size * cols) / long)), height: Math.max(1, Math.round((size * rows) / long)) };
}
