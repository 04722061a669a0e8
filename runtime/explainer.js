// @ts-check
// Runs an explainer graph (docs/architecture.md, "The explainer graph contract") with
// onnxruntime-web and hands back the tensors of each target row, ready for core.computeMaps.
// Environment-neutral: the caller passes the `ort` module (onnxruntime-web's Node build in
// the CLI, its browser build in the page's Worker) and the model bytes, so this file
// imports nothing platform-specific. Its parts: the ONNX sessions' opening and residency
// (onnx-session.js) and options (session-options.js), the graphs and the family choice
// (explainer-graphs.js), the contract's checks and feeds (graph-contract.js), the tensors
// in and out (graph-tensors.js) and the split graphs' photo cache (split-cache.js).
import { validateImageMetadata, contractDims, graphOutputs, CONTRACT_OUTPUTS } from './metadata.js';
import { targetRows } from './targets.js';
import { openGraphs } from './explainer-graphs.js';
import { graphTensors, sameDims, explainedClass } from './graph-tensors.js';
import { switchFeeds, denominatorFeeds, fetchList } from './graph-contract.js';
import { splitCache } from './split-cache.js';

const now = () => (globalThis.performance ?? Date).now();

// forwardModel (optional): the plain forward graph of the same weights (input pixels,
// output logits). onnxruntime-web runs every node of a graph whatever the fetches, so a
// logits-only fetch of the explainer costs a whole explanation; with forwardModel,
// predict() is a true forward pass.
// split (optional): { photo, target } bytes of the split graphs, the photo graph and the
// class graph (models/exporter/split.py; `target` names the class graph in models/index.json),
// checked to fit at once: cachePhoto() runs the photo graph once, explainCached() then
// explains any target rows at about half the cost of explain() (a class switch in the page).
// split.later: the explainer graph's session opens at once and the split graphs' when first
// used (the Node API, where most photos are explained once).
// oneSession: one ONNX session open at a time (LARGE_WEIGHTS_BYTES): none opens here, each
// when its graph is first needed (the caller's prepareExplainer() opens the first), after
// the one open is released; it takes no split graphs (their point is two sessions open
// beside the others). The caller runs one request at
// a time (the Worker's queue), so the session released is never one in use. In place of
// the class graph, explain() returns a photo's Linear denominators from the default
// family's graph, which the caller gives back for that photo's other classes.
// families (optional): [{ name, bytes }] graphs per method family (models/exporter/
// families.py) of the same weights, each with only the passes its methods read: an
// explanation runs the smallest graph (in bytes, which follow its nodes and its ONNX session's
// opening time) that has every output it fetches, the explainer graph when none has.
// foldWeightParts: the family graphs open with their weights' LinearParts folded into
// constants (FOLDED_FAMILY_SESSION): quicker first runs, more memory; for small weights.
// Graphs with external weights need sessionOptions.externalData.
// ONNX sessions: without split graphs the explainer graph's opens at once. With them the plain
// forward graph's opens at once when given (the smallest: it predicts while the others
// open), else the photo graph's; the others open when first used or prepared: the
// explainer and family graphs take longer to open than a forward runs (docs/architecture.md).
/**
 * @param {{ ort: any, model: ArrayBuffer | Uint8Array, metadata: object, sessionOptions?: object, modelName?: string,
 *   forwardModel?: ArrayBuffer | Uint8Array, forwardName?: string, split?: object,
 *   families?: { name: string, bytes: ArrayBuffer | Uint8Array }[], oneSession?: boolean, foldWeightParts?: boolean }} options
 */
export async function openExplainer({
  ort, model, metadata, sessionOptions = {}, modelName = 'model.onnx', forwardModel, forwardName = 'forward.onnx',
  split, families = [], oneSession = false, foldWeightParts = false,
}) {
  if (!ort?.InferenceSession) throw new Error('openExplainer needs the onnxruntime-web module as `ort`');
  if (oneSession && split) throw new Error(`openExplainer: ${modelName} opened with oneSession takes no split graphs`);
  validateImageMetadata(metadata, `metadata of ${modelName}`);
  const bytes = model instanceof Uint8Array ? model : new Uint8Array(model);
  const graphs = await openGraphs({
    ort, bytes, metadata, sessionOptions, modelName, forwardModel, forwardName, split, families, oneSession, foldWeightParts,
  });
  const { explainerGraph, explainers, explainerFor, photoGraph, classGraph, forwardGraph } = graphs;
  const d = contractDims(metadata);
  const { classes: C, height: H, width: W } = d;
  const tensors = graphTensors(ort, d);
  const outputs = graphOutputs(metadata);
  const fetchesFor = (wanted) => fetchList(wanted, outputs, modelName);
  const cache = split ? splitCache({ ort, graphs, tensors, outputs, modelName, classes: C }) : null;
  const needSplit = () => {
    if (!cache) throw new Error(`${modelName} was opened without its split graphs`);
    return cache;
  };

  // given: the denominators a run of the same photo formed (a oneSession model's class
  // switch), for the graph that formed them; a oneSession model's run without them fetches
  // those its graph forms (→ `formed`, null where none).
  async function run(pixels, rows, K, fetches, given = null) {
    const inputs = { pixels: tensors.pixelsTensor(pixels), target: new ort.Tensor('float32', rows, [K, C]) };
    const graph = explainerFor(fetches);
    const explainer = await graph.graph.open(); // opening it is not the run's time
    const reuse = given?.graph === graph.name ? given.tensors : null;
    const keep = oneSession && !reuse ? graph.formed : [];
    const feeds = { ...inputs, ...switchFeeds(ort, explainer.inputNames, fetches), ...denominatorFeeds(ort, explainer, graph.formed, reuse) };
    const started = now();
    const result = await explainer.run(feeds, [...fetches, ...keep]);
    const modelMs = now() - started;
    tensors.checkShapes(result, fetches, K, graph.name);
    const formed = keep.length ? { graph: graph.name, tensors: Object.fromEntries(keep.map((o) => [o, result[o]])) } : null;
    return { result, modelMs, graph: graph.name, formed };
  }

  // The plain forward graph on n images → their logits, checked to be [n, C].
  async function runForward(input, n) {
    const forward = await forwardGraph.open();
    const result = await forward.run({ [forward.inputNames[0]]: input });
    const logits = result[forward.outputNames.includes('logits') ? 'logits' : forward.outputNames[0]];
    if (!sameDims(logits.dims, [n, C])) {
      throw new Error(`${forwardName}: logits have shape [${logits.dims.join(',')}] for ${n} image${n > 1 ? 's' : ''}, `
        + `the metadata implies [${n},${C}]${n > 1 ? ' (re-export it with a dynamic batch axis: npm run build)' : ''}`);
    }
    return logits.data;
  }

  // A zero target row: the graph still wants the input when only logits are fetched.
  const zeroRow = new Float32Array(C);

  return {
    metadata,
    // The explainer graph's ONNX session, null until it opens (at once without split graphs).
    get session() { return explainerGraph.session; },

    // True when one ONNX session is open at a time (oneSession: a large model).
    oneSession,
    dims: d,

    // The outputs this graph has (the contract's and the optional ones it declares).
    outputs,

    // True when predict() runs the plain forward graph, not the whole explainer.
    get hasForward() { return forwardGraph !== null; },

    // Logits only: the forward graph when given, else a logits-only fetch of the explainer
    // (as slow as explain() with one target row; measured in bench/explain.js).
    async predict(pixels) {
      if (forwardGraph) {
        const started = now();
        const logits = await runForward(tensors.pixelsTensor(pixels), 1);
        return { logits, timings: { modelMs: now() - started } };
      }
      const { result, modelMs } = await run(pixels, zeroRow, 1, ['logits']);
      return { logits: result.logits.data, timings: { modelMs } };
    },

    // n images at once through the plain forward graph (its batch axis is dynamic):
    // batch is a Float32Array of n·3·H·W normalised values → Float32Array of n·C logits.
    async predictBatch(batch, n) {
      if (!forwardGraph) throw new Error(`predictBatch needs the plain forward graph (${forwardName}) beside ${modelName}`);
      if (!(batch instanceof Float32Array) || !(n > 0) || batch.length !== n * 3 * H * W) {
        throw new Error(`predictBatch takes a Float32Array of ${n}×3×${H}×${W} values (got length ${batch?.length})`);
      }
      return runForward(new ort.Tensor('float32', batch, [n, 3, H, W]), n);
    },

    // rows (the target rows): class ids, Float32Array(C) weight vectors (e.g. e_A − e_B), or null for the
    // predicted class (one run gives the logits and the top-1 explanation). options.outputs:
    // the graph outputs to fetch (default all; core.outputsFor(methods) gives what some
    // methods read). Returns { logits, classes, tensors, timings, graph }: graph is the
    // name of the graph that ran (a family's or the explainer's), classes[k] is the class
    // row k explains (null for a weight vector); tensors[k] = { attn, attn_grad, attn_rel,
    // attn_rel_classic_last, input_rel_classic }, each { data, shape } as core.computeMaps
    // takes them: data is a
    // subarray view into the fetched output (no copies), shape without the K axis;
    // `attn` is one object shared by all rows.
    // options.denominators: the `denominators` an earlier explain() of the same pixels
    // returned. A oneSession model's run without them returns those its graph formed
    // (opaque; null where it forms none): a class switch given them skips their products.
    async explain(pixels, rows, { outputs: wanted = CONTRACT_OUTPUTS, denominators = null } = {}) {
      const fetches = fetchesFor(wanted);
      const K = rows.length;
      const { result, modelMs, graph, formed } = await run(pixels, targetRows(rows, C), K, ['logits', ...fetches], denominators);
      const logits = result.logits.data;
      return {
        logits,
        classes: rows.map((r) => explainedClass(r, logits)),
        tensors: tensors.perRowTensors(result, fetches, K),
        timings: { modelMs },
        graph,
        denominators: formed,
      };
    },

    // True when cachePhoto()/explainCached() are available (split graphs given).
    get canCachePhoto() { return Boolean(split); },

    // True once the explainer graph's ONNX session is open.
    get explainerOpen() { return explainerGraph.session !== null; },

    // True once the ONNX session of the graph that explain() runs for `wanted` outputs is open:
    // until then predict() with the forward graph gives a prediction without waiting for it.
    isOpenFor(wanted) {
      return explainerFor(['logits', ...fetchesFor(wanted)]).graph.session !== null;
    },

    // Open the photo, explainer and class graphs' ONNX sessions ahead of their first use (the
    // page does it while the visitor chooses a photo); photo and class graphs need split graphs.
    // prepareClassGraph opens the class graph's.
    // prepareExplainer opens the graph explain() runs for `wanted` outputs (default: the
    // contract's).
    async preparePhoto() {
      if (split) await photoGraph.open(true);
    },
    async prepareExplainer(wanted = CONTRACT_OUTPUTS) {
      await explainerFor(['logits', ...fetchesFor(wanted)]).graph.open();
    },
    // The explanation graphs whose ONNX sessions are not open yet, smallest first, each as a
    // function that opens it: for opening them one at a time while the caller is idle.
    unopenedExplainers() {
      return explainers.filter((g) => g.graph.session === null).map((g) => () => g.graph.open());
    },
    async prepareClassGraph() {
      if (split) await classGraph.open();
    },
    // Opens every graph's ONNX session (one at a time with oneSession), each checking the
    // axes it fixes against the metadata: a model the visitor brought is checked whole before
    // the page keeps it in place of another. A failure throws, naming the graph.
    // onOpened() follows each opening.
    async openAll(onOpened = () => {}) {
      for (const graph of graphs.all()) {
        await graph.open();
        onOpened();
      }
    },

    // The class-independent half of an explanation, once per photo: the photo graph's
    // outputs, kept as the class graph's feeds. → { logits, modelMs, feeds }
    cachePhoto: async (pixels) => needSplit().cachePhoto(pixels),

    // explain() on a cachePhoto() result: the same return value, at the class graph's cost.
    explainCached: async (photoCache, rows, { outputs: wanted = CONTRACT_OUTPUTS } = {}) => needSplit().explainCached(photoCache, rows, wanted),

    release: () => graphs.releaseAll(),
  };
}
