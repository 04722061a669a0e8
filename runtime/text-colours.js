// @ts-check
// A text's colours, token by token or word by word: one rule for the CLI's report.html
// (runtime/node/text-report.js) and the <vit-relevance> element (web/element/text-drawing.js).
// The core's rdbu colormap in 21 steps, white at 0: a positive-scale map (min-max) goes
// from white to red, a signed one (lrp_full, attnlrp, cp_lrp, contrasts: runtime/map-scale.js)
// blue < 0 < red. Text on a dark step is white. Environment-neutral.

export const TEXT_STEPS = 20;

/**
 * The steps' colours, 0 (blue) … TEXT_STEPS / 2 (white) … TEXT_STEPS (red).
 * @param {any} core the WebAssembly core
 * @returns {{ rgb: string, light: boolean }[]}
 */
export function stepColours(core) {
  const levels = Float32Array.from({ length: TEXT_STEPS + 1 }, (_, i) => i / TEXT_STEPS);
  const rgba = core.colorize(levels, 1, levels.length, 'rdbu');
  return Array.from(levels, (_, i) => {
    const [r, g, b] = rgba.subarray(4 * i, 4 * i + 3);
    return { rgb: `rgb(${r},${g},${b})`, light: 0.299 * r + 0.587 * g + 0.114 * b > 140 };
  });
}

/**
 * Each value's step on `scale`: a signed map puts 0 in the middle, a positive one starts
 * there. A value that is no number (a word map's NaN: a word of unknown pieces has no
 * score) gets null, and the others are scaled without it.
 * @param {any} core @param {ArrayLike<number>} data @param {'positive' | 'signed'} scale
 * @returns {(number | null)[]}
 */
export function valueSteps(core, data, scale) {
  const values = Array.from(data);
  const finite = Float32Array.from(values.filter(Number.isFinite));
  const scaled = finite.length ? core.scaled(finite, scale) : finite;
  let k = 0;
  return values.map((v) => {
    if (!Number.isFinite(v)) return null;
    const x = scaled[k++];
    return Math.round((scale === 'signed' ? x : 0.5 + x / 2) * TEXT_STEPS);
  });
}

/** A score as the text's tooltips show it. @param {number} v */
export const scoreText = (v) => (Number.isFinite(v) ? v.toPrecision(4) : 'no score');
