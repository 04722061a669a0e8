// @ts-check
// The caption under an element's maps, a photo's or a text's: its own module, since both
// drawings use it and the text drawing loads on demand (web/element-text.js): importing it
// from the photo drawing would tie the two into a circle.
import { standingText } from 'vit-relevance/runtime/confidence.js';

/** @import { Explainer, MethodId } from '../vit-relevance.js' */

/**
 * The caption under the maps (a photo's or a text's): the class with its standing ("tiger
 * cat (3.10%, rank 3) rather than bull mastiff (…)"), the methods drawn, and what the maps
 * leave out (methods that cannot contrast, a text's cut end) and the backend that ran.
 * @param {{ targets: any[], notes?: string[] }} result @param {Explainer} explainer
 */
export function captionOf(result, explainer) {
  const [target] = result.targets;
  const standing = target.contrast
    ? `${target.label} (${standingText(target)}) rather than ${target.contrast.label} (${standingText(target.contrast)})`
    : `${target.label} · ${standingText(target)}`;
  const names = Object.keys(target.maps).map((m) => explainer.method(/** @type {MethodId} */ (m)).shortName).join(', ');
  return [standing, names, ...(result.notes ?? [])].filter(Boolean).join(' · ');
}
