// @ts-check
// How confident the model is in the class a map explains, in words: its probability and
// rank among all classes (also outside the top-5), a warning when it is very unlikely,
// and a notice when a map is constant (a method that finds nothing to show for the class,
// e.g. Grad-CAM when every head's weight is negative), so no view shows an unexplained wash.
// The page and the CLI (`explain`) say it in the same words. Environment-neutral.

// Below this probability the explained class is "very unlikely": 1 % is under a tenth of
// a typical top-1 and below what DeiT gives its 5th class on most photos, so the map then
// shows what would raise a score the model has all but ruled out.
export const UNLIKELY_BELOW = 0.01;

export const pct = (p) => `${(p * 100).toFixed(p >= 0.1 ? 1 : p >= 0.0001 ? 2 : 4)}%`;

// "2.10%, rank 2 of 1000" for runtime/topk.js classStanding's result; "2.10%, rank 2" for
// an explained target of the API, which carries no class count.
export const standingText = ({ prob, rank, classes }) => `${pct(prob)}, rank ${rank}${classes ? ` of ${classes}` : ''}`;

// A sentence for a very unlikely class, or '' when it is not.
export function unlikelyNote(label, standing) {
  if (!(standing.prob < UNLIKELY_BELOW)) return '';
  return `The model gives “${label}” only ${pct(standing.prob)} (rank ${standing.rank}): the map shows what would `
    + 'raise that score, not what the model sees in the photo.';
}

// At or above this Pearson r between the two classes' own maps, a contrast warns that the
// method hardly tells them apart: partial LRP and the no-∇A ablation reach 0.94–1.0 on the
// samples, transformer attribution 0.47 and generic attention 0.52 for catdog's bull
// mastiff and tiger cat, and 0.96–0.97 for tiger cat and tabby (docs/contrast.md).
export const NEAR_EQUAL_FROM = 0.95;

// A sentence for a contrast whose two maps are near-equal, or '' when they are not.
export function nearEqualNote(correlation) {
  if (!(correlation >= NEAR_EQUAL_FROM)) return '';
  return `the two classes' own maps correlate at r = ${correlation.toFixed(2)}: this method hardly tells them apart here, `
    + 'so the contrast is the difference of two near-equal maps';
}

// Every value equal: min-max scaling has nothing to show.
export function isConstantMap(map) {
  const d = map?.data;
  if (!d?.length) return false;
  for (let i = 1; i < d.length; i++) if (d[i] !== d[0]) return false;
  return true;
}

export const CONSTANT_NOTE = 'map is constant: this method finds no relevance for this class';
