// The settings every evaluation records in run.json about the model it ran and how it
// read the photos: records are only resumed or merged with records of the same graph
// file, engine, methods, start layer and decoding. Each evaluation adds its own fields
// (fractions, seed, masks, …). With attribution (attattr among the methods), also the
// attribution graphs' weights and m.
import { fileSha256 } from '../../runtime/node/file-sha256.js';
import { DECODE } from './photo.js';
import { attributionPaths } from '../../runtime/node/open-attribution.js';
import { DEFAULT_STEPS } from '../../runtime/attribution-maps.js';

export async function modelSettings({ explainer, modelFile, methods, startLayer, attribution = null }) {
  const attr = attribution && { attributionSha256: await fileSha256(attributionPaths(modelFile, 0).weights), attributionSteps: DEFAULT_STEPS };
  return {
    ...attr,
    model: explainer.metadata.name,
    graphSha256: await fileSha256(modelFile),
    engine: explainer.engine,
    methods,
    startLayer,
    decode: DECODE,
  };
}
