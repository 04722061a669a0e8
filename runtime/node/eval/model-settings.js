// The settings every evaluation records in run.json about the model it ran: records are
// only resumed or merged with records of the same graph file, engine, methods and start
// layer. Each evaluation adds its own fields (fractions, seed, masks, …).
import { fileSha256 } from '../file-sha256.js';

export async function modelSettings({ explainer, modelFile, methods, startLayer }) {
  return {
    model: explainer.metadata.name,
    graphSha256: await fileSha256(modelFile),
    engine: explainer.engine,
    methods,
    startLayer,
  };
}
