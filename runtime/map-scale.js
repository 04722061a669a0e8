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

const percent = (share) => `${share < 0.1 ? (share * 100).toFixed(1).replace(/\.0$/, '') : Math.round(share * 100)}%`;
const num = (v) => (v === 0 ? '0' : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(2) : v.toPrecision(3));

// "signed scale (blue < 0 < red), smoothed": how a map is drawn, in words.
export function scaleWords(core, map, scale, summary = core.summarize(map, scale)) {
  return `${scale === 'signed' ? 'signed scale (blue < 0 < red)' : 'positive scale (min–max)'}${summary.smoothed ? ', smoothed' : ''}`;
}

// The values the colour scale's two ends stand for, as text: ['-2.61e+7', '+2.61e+7'].
export function scaleEnds(core, map, scale) {
  const { low, high } = core.summarize(map, scale);
  return scale === 'signed' ? [`-${num(high)}`, `+${num(high)}`] : [num(low), num(high)];
}

// What the colours mean, the raw range and the share of negatives (raw values stay in
// maps.json and .npy; src/render/map_scale.h), e.g. for lrp_full:
// "signed scale (blue < 0 < red), smoothed · full colour at ±2.61e+7, 3% of the map beyond ·
//  min -9.89e+10 · max 4.27e+10 · 69% negative"
export function scaleCaption(core, map, scale) {
  const s = core.summarize(map, scale);
  const ends = scale === 'signed' && s.clippedShare > 0
    ? ` · full colour at ±${num(s.high)}, ${percent(s.clippedShare)} of the map beyond` : '';
  return `${scaleWords(core, map, scale, s)}${ends} · min ${num(s.min)} · max ${num(s.max)} · ${Math.round(s.negativeShare * 100)}% negative`;
}
