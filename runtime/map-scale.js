// @ts-check
// Which colour scale a map is drawn with (src/render/map_scale.h: "positive" = min-max,
// "signed" = 0 in the middle of the diverging rdbu colormap), and the caption that says
// what a drawn map shows. One rule for the page, the element and the CLI.
// Environment-neutral.

// What users choose from: "auto" follows the rule below.
export const SCALE_CHOICES = Object.freeze(['auto', 'positive', 'signed']);

// Maps whose sign is the message default to signed: full LRP (±1e9, most of it negative;
// min-max turns it into a uniform wash), AttnLRP and CP-LRP (evidence for the class and
// against it; METHODS.md: divided by max|R|, 0 in the middle) and every contrast (why A
// rather than B is positive, why B rather than A negative: docs/contrast.md).
const SIGNED_BY_DEFAULT = new Set(['lrp_full', 'attnlrp', 'cp_lrp']);

/** @param {string} choice @param {string} method @param {boolean} contrast */
export function scaleFor(choice, method, contrast) {
  if (choice !== 'auto') return choice;
  return contrast || SIGNED_BY_DEFAULT.has(method) ? 'signed' : 'positive';
}

const num = (v) => (v === 0 ? '0' : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(2) : v.toPrecision(3));

// "signed scale (0 = white) · min −5.10e+9 · max 2.73e+9 · 69% negative"
export function scaleCaption(core, map, scale) {
  const { min, max, negativeShare } = core.summarize(map.data ?? map);
  const how = scale === 'signed' ? 'signed scale (blue < 0 < red)' : 'positive scale (min–max)';
  return `${how} · min ${num(min)} · max ${num(max)} · ${Math.round(negativeShare * 100)}% negative`;
}
