// The page's colour scale (positive only / signed) and contrast rules: which scale a map
// is drawn with, the per-map caption that says what is shown, the legend's words, and
// whether a contrast can run (which methods can answer "why A rather than B":
// runtime/explain-request.js's contrastBlocker).
import { scaleFor, scaleCaption, scaleEnds } from 'vit-relevance/runtime/map-scale.js';
import { nearEqualNote } from 'vit-relevance/runtime/confidence.js';

const isContrast = (target) => target?.contrast !== undefined && target?.contrast !== null;

// state.scale is 'auto' | 'positive' | 'signed' (runtime/map-scale.js).
export const scaleOf = (state, target, method) => scaleFor(state.scale, method, isContrast(target));

// "signed scale (blue < 0 < red) · min … · max … · 12% negative", and for a contrast
// whose two classes' maps are near-equal, a warning that it says little.
export function mapCaption(core, map, scale) {
  const note = nearEqualNote(map.correlation);
  return `${scaleCaption(core, map, scale)}${note ? ` · ${note}` : ''}`;
}

// The legend's three labels under the strip; with the shown map, the values its ends
// stand for ("negative -2.61e+7", "positive +2.61e+7": full colour, runtime/map-scale.js).
export function legendWords(core, scale, map = null) {
  const [low, high] = map ? scaleEnds(core, map, scale) : [null, null];
  return scale === 'signed'
    ? [low ? `negative ${low}` : 'negative', '0 (white)', high ? `positive ${high}` : 'positive']
    : [low ?? 'low', 'relevance (min–max scaled)', high ?? 'high'];
}

// Why the contrast cannot run, or null: class B must be a class other than A.
export function contrastProblem(classId, contrastId, labels) {
  if (contrastId === null || contrastId === undefined) return 'Choose class B to contrast with.';
  if (classId === contrastId) return `Class B is ${labels[contrastId]}, the class being explained: choose another class B to ask "why A rather than B".`;
  return null;
}
