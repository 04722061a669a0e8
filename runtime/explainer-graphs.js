// @ts-check
// The graphs of one model an explainer may run, each with its ONNX session opened once,
// when first needed (runtime/onnx-session.js): the explainer graph, the method families'
// graphs (an explanation runs the smallest that has every output it fetches), the split
// graphs (photo graph, class graph) and the plain forward graph. Their fit is checked from
// their bytes here, before any session opens.
import { checkSessionContract, checkSessionShapes, graphOutputs } from './metadata.js';
import { checkedOnnxSession, createOnnxSession, graphResidency, ioNames } from './onnx-session.js';
import { checkForwardSession, checkFamilyContract, checkSplitContract } from './graph-contract.js';
import {
  onCpu, CPU_SESSION, FORWARD_SESSION, FAMILY_SESSION, FOLDED_FAMILY_SESSION, PHOTO_SESSION, AHEAD_PHOTO_SESSION, CLASS_SESSION,
} from './session-options.js';

/**
 * @typedef {import('./onnx-session.js').LazyGraph} LazyGraph
 * @typedef {{ name: string, bytes: Uint8Array | ArrayBuffer, outputs: string[], formed: string[], graph: LazyGraph }} RunnableGraph
 *   a graph explain() may run: the explainer graph or a family's, its contract outputs and
 *   the Linear denominators it forms (graph-contract.js, checkFamilyContract)
 */

// The options are openExplainer's (runtime/explainer.js, which tells them); `bytes` the
// explainer graph's as a Uint8Array. ONNX sessions: with oneSession none opens here;
// without split graphs the explainer graph's opens at once; with them the plain forward
// graph's when given (the smallest: it predicts while the others open), else the photo
// graph's (split.later: the explainer graph's); the others when first used or prepared.
export async function openGraphs({
  ort, bytes, metadata, sessionOptions, modelName, forwardModel, forwardName, split, families, oneSession, foldWeightParts,
}) {
  const options = onCpu({ executionProviders: ['wasm'], ...sessionOptions }, CPU_SESSION);
  const { lazy, releaseAll } = graphResidency(oneSession);
  const explainerGraph = lazy(() => checkedOnnxSession(ort, bytes, options, modelName, (s) => checkSessionContract(s, modelName, metadata)));

  // The split graphs' fit is checked now, from their bytes, and so are the names of the
  // explainer graph that opens later.
  /** @type {string[]} */
  let cacheInputs = [];
  if (split) {
    checkSessionContract(ioNames(bytes, modelName), modelName, { outputs: metadata.outputs });
    try {
      cacheInputs = checkSplitContract(ioNames(split.photo, 'its photo graph'), ioNames(split.target, 'its class graph'), modelName, graphOutputs(metadata));
    } catch (err) {
      throw new Error(err.message.startsWith(modelName) ? err.message : `${modelName}: cannot open its split graphs: ${err.message}`);
    }
  }
  // The graphs an explanation may run, smallest first (bytes follow a graph's nodes and its
  // ONNX session's opening time).
  /** @type {RunnableGraph[]} */
  const explainers = [
    { name: modelName, bytes, outputs: graphOutputs(metadata), formed: [], graph: explainerGraph },
    ...families.map(({ name, bytes: graphBytes }) => ({
      name,
      bytes: graphBytes,
      ...checkFamilyContract(ioNames(graphBytes, name), name),
      graph: lazy(() => checkedOnnxSession(ort, graphBytes, onCpu(options, foldWeightParts ? FOLDED_FAMILY_SESSION : FAMILY_SESSION),
        name, (s) => checkSessionShapes(s, name, metadata))),
    })),
  ].sort((a, b) => a.bytes.byteLength - b.bytes.byteLength);

  const photoGraph = lazy((ahead) => checkedOnnxSession(ort, split.photo, onCpu(options, ahead ? AHEAD_PHOTO_SESSION : PHOTO_SESSION),
    'its photo graph', (s) => checkSessionShapes(s, `${modelName} (its photo graph)`, metadata)));
  const classGraph = lazy(() => createOnnxSession(ort, split.target, onCpu(options, CLASS_SESSION), 'its class graph'));
  const forwardGraph = forwardModel
    ? lazy(() => checkedOnnxSession(ort, forwardModel, onCpu(options, FORWARD_SESSION), forwardName, (s) => checkForwardSession(s, forwardName, metadata)))
    : null;
  if (!oneSession) {
    try {
      if (!split || !forwardModel) await (split && !split.later ? photoGraph : explainerGraph).open();
      await forwardGraph?.open();
    } catch (err) {
      await releaseAll();
      throw err;
    }
  }
  return {
    explainerGraph,
    explainers,
    // The smallest graph with every output of `fetches`; the explainer graph has them all.
    /** @param {string[]} fetches @returns {RunnableGraph} */
    explainerFor: (fetches) => explainers.find((g) => fetches.every((o) => g.outputs.includes(o))),
    photoGraph,
    classGraph,
    forwardGraph,
    // The class graph's inputs a photo graph's run feeds (a photo's cache).
    cacheInputs,
    // Every graph, in the order openAll opens them.
    all: () => [...explainers.map((g) => g.graph), ...(split ? [photoGraph, classGraph] : []), ...(forwardGraph ? [forwardGraph] : [])],
    releaseAll,
  };
}
