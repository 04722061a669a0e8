// @ts-check
// The split graphs' photo cache (models/exporter/split.py): cachePhoto() runs the photo
// graph once per photo and keeps its outputs as the class graph's feeds; explainCached()
// then explains any target rows at about half the cost of a whole run (a class switch).
import { targetRows } from './targets.js';
import { explainedClass } from './graph-tensors.js';
import { switchFeeds, fetchList } from './graph-contract.js';

const now = () => (globalThis.performance ?? Date).now();

// graphs: runtime/explainer-graphs.js's; tensors: runtime/graph-tensors.js's for the model.
export function splitCache({ ort, graphs, tensors, outputs, modelName, classes: C }) {
  const { photoGraph, classGraph, cacheInputs } = graphs;
  return {
    // The class-independent half of an explanation, once per photo: the photo graph's
    // outputs, kept as the class graph's feeds. → { logits, modelMs, feeds }
    async cachePhoto(pixels) {
      const photo = await photoGraph.open();
      const started = now();
      const result = await photo.run({ pixels: tensors.pixelsTensor(pixels) });
      const modelMs = now() - started;
      tensors.checkShapes(result, ['logits', 'attn'], 1, `${modelName} photo graph`);
      const feeds = Object.fromEntries(cacheInputs.map((n) => [n, result[n]]));
      return { logits: result.logits.data, modelMs, feeds };
    },

    // explain() on a cachePhoto() result: the same return value, at the class graph's cost.
    async explainCached(cache, rows, wanted) {
      const fetches = fetchList(wanted, outputs, modelName);
      const classSession = await classGraph.open();
      const K = rows.length;
      const graphFetches = fetches.filter((o) => o !== 'attn');
      const feeds = {
        ...cache.feeds,
        target: new ort.Tensor('float32', targetRows(rows, C), [K, C]),
        ...switchFeeds(ort, classSession.inputNames, fetches),
      };
      const started = now();
      const result = graphFetches.length ? await classSession.run(feeds, graphFetches) : {};
      const modelMs = now() - started;
      tensors.checkShapes(result, graphFetches, K, `${modelName} class graph`);
      const logits = cache.logits;
      return {
        logits,
        classes: rows.map((r) => explainedClass(r, logits)),
        tensors: tensors.perRowTensors({ ...result, attn: cache.feeds.attn }, fetches, K),
        timings: { modelMs },
      };
    },
  };
}
