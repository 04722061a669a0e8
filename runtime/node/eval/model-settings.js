// The settings every evaluation records in run.json about the model it ran and how it
// read the photos: records are only resumed or merged with records of the same graph
// file, engine, methods, start layer and decoding. Each evaluation adds its own fields
// (fractions, seed, masks, …).
import { fileSha256 } from '../file-sha256.js';
import { DECODE } from './photo.js';

export async function modelSettings({ explainer, modelFile, methods, startLayer }) {
  return {
    model: explainer.metadata.name,
    graphSha256: await fileSha256(modelFile),
    engine: explainer.engine,
    methods,
    startLayer,
    decode: DECODE,
  };
}
