// @ts-check
// The segmentation test of one photo (METHODS.md, "Evaluation protocols"; the official
// imagenet_seg_eval.py): one explainer run gives the map of the PREDICTED class for every
// method; each map, at the input size (patch maps upsampled bilinearly, lrp_full is already
// a pixel map), is scored against the mask in the model's frame by core.segmentationCounts
// (min-max, foreground above the mean; average precision of the soft map).
// Environment-neutral: the caller decodes the photo and mask and owns the explainer and core.
import { inputSizeMap } from './input-size-maps.js';
import { mapOptions } from '../runtime/metadata.js';

// pre: core.preprocess(...) of the photo; mask: Uint8Array H·W of 0/1 in the model's frame
// (segmentation-mask.js); options: { methods, startLayer }.
// → { predicted, counts: { method: { correct, labeled, intersection: [bg, fg], union: [bg, fg], averagePrecision } } }
export async function segmentPhoto({ explainer, core, pre, mask, options }) {
  const { metadata } = explainer;
  const [H, W] = metadata.architecture.image_size;
  const { methods, startLayer } = options;
  if (mask.length !== H * W) throw new Error(`the mask in the model's frame has ${mask.length} pixels, the input ${W}x${H}`);
  const out = await explainer.explain(pre.data, [null], { outputs: core.outputsFor(methods) });
  const maps = core.computeMaps(out.tensors[0], mapOptions(metadata, methods, startLayer));
  const counts = {};
  for (const method of methods) {
    const c = core.segmentationCounts(inputSizeMap(core, maps[method], H, W), mask);
    counts[method] = {
      correct: c.correct, labeled: c.labeled, intersection: [...c.intersection], union: [...c.union], averagePrecision: c.averagePrecision,
    };
  }
  return { predicted: out.classes[0], counts };
}
