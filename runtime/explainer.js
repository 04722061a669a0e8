// @ts-check
// Runs an explainer graph (docs/architecture.md, "The explainer graph contract") with
// onnxruntime-web and hands back the tensors of each target row, ready for core.computeMaps.
// Environment-neutral: the caller passes the `ort` module (onnxruntime-web's Node build in
// the CLI, its browser build in the page's Worker) and the model bytes, so this file
// imports nothing platform-specific.
import {
  validateMetadata, checkSessionContract, checkSessionShapes, contractDims, graphOutputs, CONTRACT_OUTPUTS, OPTIONAL_OUTPUTS,
} from './metadata.js';
import { targetRows } from './targets.js';
import { graphIoNames } from './onnx-io.js';

const now = () => (globalThis.performance ?? Date).now();

// First maximum, as the graph's ArgMax picks it.
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

export function sameDims(a, b) {
  return a.length === b.length && a.every((v, i) => Number(v) === b[i]);
}

// A plain forward graph: one input (the pixels), logits as its first output.
// onnxruntime's words for a graph whose weights live in a file it was not given.
const EXTERNAL_DATA = /Failed to load external data file "+([^"]+)"+/;

// The external weights file a failed ONNX session creation asked for, or null.
function missingExternalData(err) {
  return EXTERNAL_DATA.exec(err?.message ?? '')?.[1] ?? null;
}

// InferenceSession.create with a message naming the graph (and a missing weights file).
// An external file whose `data` is a function is read for this opening alone: a large
// model holds no copy of its weights between its sessions' openings (oneSession), where
// onnxruntime keeps its own in the session.
export async function createOnnxSession(ort, bytes, options, name) {
  const read = async (d) => (typeof d.data === 'function' ? { ...d, data: await d.data() } : d);
  const opening = options.externalData ? { ...options, externalData: await Promise.all(options.externalData.map(read)) } : options;
  try {
    return await ort.InferenceSession.create(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes), opening);
  } catch (err) {
    const weights = missingExternalData(err);
    const given = (options.externalData ?? []).map((d) => d.path);
    if (weights && given.includes(weights)) throw new Error(`${name}: its external weights file ${weights} does not fit it: ${err.message}`);
    if (weights) {
      // externalData: the file's name, so a caller holding it can open the graph again.
      throw Object.assign(new Error(`${name} keeps its weights in the external file ${weights}, `
        + (given.length ? `not in ${given.join(', ')}` : `which is missing: put ${weights} beside it (the exporter writes both)`)),
      { externalData: weights });
    }
    throw new Error(`${name} is not an ONNX model: ${err.message}`);
  }
}

// A graph's input and output names without an ONNX session, or an error naming it.
function ioNames(bytes, name) {
  try {
    return graphIoNames(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  } catch (err) {
    throw new Error(`${name} is not an ONNX model: ${err.message}`);
  }
}

// On the CPU (onnxruntime-web's WebAssembly, onnxruntime-node's cpu) every graph opens
// without onnxruntime's weight prepacking. In onnxruntime-web its prepacked products round
// otherwise, and the LRP passes amplify rounding: the golden transformer-attribution map of
// catdog's class 282 (METHODS.md) fell from Pearson 0.9998 to 0.997 (the graphs of before
// docs/experiments.md's "Graphs block by block") or 0.989 (theirs) with it. Prepacking also
// took a third of a session's opening and a packed copy of the weights, for runs no quicker.
export const CPU_SESSION = { extra: { session: { disable_prepacking: '1' } } };

// The plain forward graph opens with onnxruntime's graph optimisation off: the exporter
// leaves nothing in it to fold (its products are Gemm over the weights as stored:
// models/exporter/explainer.py, plain_block), and optimisation took about a third of its
// ONNX session's opening, which is on the page's way to "ready", while its forwards are as
// fast without it (docs/experiments.md, "Opening a model"). WebGPU keeps onnxruntime's
// defaults (not measured there).
export const FORWARD_SESSION = { graphOptimizationLevel: 'disabled' };

// A method family's graph: the exporter leaves its pieces with nothing to fold or fuse but
// the LinearParts the loops read (models/exporter/scan_graph.py: a weight's positive and
// negative parts and its magnitude). At the basic level onnxruntime folds them into
// constants, up to three copies of the weights more in the session (DeiT-tiny's default
// family graph: 60–75 MB, Node); with optimisation off they are computed on each run.
// Folded (FOLDED_FAMILY_SESSION) where the weights are at most FOLD_WEIGHTS_BYTES: the
// page's first map in a new tab came 180–260 ms sooner (the first run's operators are
// fewer, and V8 compiles each as it is first called; two interleaved runs of 9 and 12
// visits), the session opened as fast in the page and later runs were as long (1.007×, 30
// paired runs in Node). Computed otherwise (FAMILY_SESSION): a ViT-S/16 page with every
// session open would hold up to about 0.8 GB more (docs/experiments.md, "The family
// graphs' level, measured in the browser").
const FAMILY_SESSION = { graphOptimizationLevel: 'disabled' };
const FOLDED_FAMILY_SESSION = { graphOptimizationLevel: 'basic' };
export const FOLD_WEIGHTS_BYTES = 32 * 2 ** 20;

// The photo graph opens as whoever opens it first needs: optimisation off where a request
// waits on the opening (an embed's init opens it: embeds predict with it), the basic level
// (AHEAD_PHOTO_SESSION) where the page opens it while its Worker is idle, for its runs (one
// per photo). DeiT-tiny, onnxruntime-web in Node, quiet: fresh openings 99 ms (off), 226
// (basic), 284 (the default level); runs on 2 threads 1.04× the default level's (off) and
// 0.99× (basic), outputs identical. An element's startup in a new tab, 4 interleaved
// rounds: 1,385 ms against 1,529 with the basic level (docs/experiments.md, "The split
// graphs' openings").
const PHOTO_SESSION = { graphOptimizationLevel: 'disabled' };
const AHEAD_PHOTO_SESSION = { graphOptimizationLevel: 'basic' };

// The class graph opens at the basic level, for embeds (its opening is on the way to their
// first map) and the page (every class switch runs it) alike: fresh openings 487 ms against
// 598 at the default level, runs 0.96–0.99× as long (30 paired runs, 2 threads). With
// optimisation off it opened in 301 ms but ran 1.04–1.05× as long, and an element's first
// map came no sooner in the browser (1,493 ms against 1,338, 4 interleaved rounds): the
// first runs of its unfused operators cost what the opening saved (same entry).
const CLASS_SESSION = { graphOptimizationLevel: 'basic' };

// A model whose weights file is larger than this keeps one ONNX session open at a time
// (`oneSession`): each session holds its own copy of the weights, and a run as much again
// in its records (a random ViT-B/16, 346 MB of weights: one session of its default graph,
// opened and run, 1.6 GB; every graph of the page open, 4.6 GB of the renderer's memory:
// docs/experiments.md). ViT-S/16's 88 MB stay below it.
export const LARGE_WEIGHTS_BYTES = 128 * 2 ** 20;

// `options` with `cpu`'s merged in where every execution provider is the CPU's (WebGPU
// keeps onnxruntime's defaults: not measured there).
export function onCpu(options, cpu) {
  if (!options.executionProviders.every((ep) => ['wasm', 'cpu'].includes(ep.name ?? ep))) return options;
  return { ...options, ...cpu, extra: { ...options.extra, session: { ...options.extra?.session, ...cpu.extra?.session } } };
}

// The plain forward graph's ONNX session, checked against the metadata's shapes.
async function openForward(ort, bytes, options, name, metadata) {
  const session = await createOnnxSession(ort, bytes, onCpu(options, FORWARD_SESSION), name);
  try {
    if (session.inputNames.length !== 1 || !session.outputNames.length) {
      throw new Error(`${name} is not a plain forward graph (inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')}): it needs one input, the pixels, and the logits as output`);
    }
    checkSessionShapes(session, name, metadata);
  } catch (err) {
    await session.release();
    throw err;
  }
  return session;
}

// Each switch input and the output it computes (contract: 1 exactly when that output is
// fetched, since each is a costly pass only its methods read). pixel_relevance is in every
// graph; a graph exported before AttnLRP/CP-LRP lacks the other two and is not fed them.
const SWITCHES = {
  pixel_relevance: 'input_rel_classic',
  ...Object.fromEntries(Object.entries(OPTIONAL_OUTPUTS).map(([output, { input }]) => [input, output])),
};

function switchFeeds(ort, inputNames, fetches) {
  return Object.fromEntries(Object.entries(SWITCHES).filter(([input]) => inputNames.includes(input))
    .map(([input, output]) => [input, new ort.Tensor('float32', new Float32Array([fetches.includes(output) ? 1 : 0]), [])]));
}

// The split graphs (models/exporter/split.py) must fit each other: every input of the
// class graph but `target` (its target rows) and the switches is an output of the photo graph.
function checkSplitContract(photo, classGraph, name, outputs) {
  const problems = [];
  for (const o of ['logits', 'attn']) if (!photo.outputNames.includes(o)) problems.push(`its photo graph lacks output ${o}`);
  if (!photo.inputNames.includes('pixels')) problems.push('its photo graph lacks input pixels');
  const cacheInputs = classGraph.inputNames.filter((n) => n !== 'target' && !(n in SWITCHES));
  const unfed = cacheInputs.filter((n) => !photo.outputNames.includes(n));
  if (unfed.length) problems.push(`class graph inputs no photo graph output feeds: ${unfed.slice(0, 5).join(', ')}`);
  const inputs = ['target', 'pixel_relevance', ...outputs.filter((o) => o in OPTIONAL_OUTPUTS).map((o) => OPTIONAL_OUTPUTS[o].input)];
  for (const n of inputs) if (!classGraph.inputNames.includes(n)) problems.push(`its class graph lacks input ${n}`);
  const missing = outputs.filter((o) => o !== 'logits' && o !== 'attn' && !classGraph.outputNames.includes(o));
  if (missing.length) problems.push(`its class graph lacks outputs ${missing.join(', ')}`);
  if (problems.length) throw new Error(`${name}: the split graphs do not fit: ${problems.join('; ')}`);
  return cacheInputs;
}

// A family graph's Linear denominators (models/exporter/split.py, add_switched_inverses):
// formed on a photo's first run as outputs `formed.<block>.<layer>`, given back on a class
// switch as inputs `given.<block>.<layer>`, `inverse_rows` [F,1,1] choosing which.
const FORMED = 'formed.';
const GIVEN = 'given.';
const givenName = (formed) => GIVEN + formed.slice(FORMED.length);

// A family graph (models/exporter/families.py) takes the explainer graph's pixels and
// target rows, and the switch of each switched output it has; its outputs are the contract's
// names, and the denominators it forms, each with its input. → { outputs: its contract
// output names, formed: the denominators' output names }.
function checkFamilyContract({ inputNames, outputNames }, name) {
  const known = [...CONTRACT_OUTPUTS, ...Object.keys(OPTIONAL_OUTPUTS)];
  const problems = [];
  const formed = outputNames.filter((o) => o.startsWith(FORMED));
  const needed = ['pixels', 'target', ...Object.entries(SWITCHES).filter(([, o]) => outputNames.includes(o)).map(([i]) => i),
    ...(formed.length ? ['inverse_rows', ...formed.map(givenName)] : [])];
  const missing = needed.filter((n) => !inputNames.includes(n));
  if (missing.length) problems.push(`it lacks inputs ${missing.join(', ')}`);
  const unknown = outputNames.filter((o) => !known.includes(o) && !formed.includes(o));
  if (unknown.length) problems.push(`its outputs ${unknown.join(', ')} are not the explainer contract's`);
  if (!outputNames.includes('logits')) problems.push('it lacks output logits');
  if (problems.length) throw new Error(`${name} is not a method family's graph: ${problems.join('; ')}`);
  return { outputs: outputNames.filter((o) => !formed.includes(o)), formed };
}

// The feeds that choose a family graph's denominators: the `given` ones ({ output name:
// tensor } of the same photo's first run) with no rows formed, or, without them, one row
// formed beside empty given inputs (their axes from the session: the symbolic one 0).
// The first-run feeds are the same on every run of a session: made once.
const firstRunFeeds = new WeakMap();
function denominatorFeeds(ort, session, formed, given) {
  if (!formed.length) return {};
  const rows = (n) => new ort.Tensor('float32', new Float32Array(n).fill(1), [n, 1, 1]);
  if (given) return { inverse_rows: rows(0), ...Object.fromEntries(formed.map((o) => [givenName(o), given[o]])) };
  if (!firstRunFeeds.has(session)) {
    const shapes = Object.fromEntries((session.inputMetadata ?? []).map((m) => [m.name, m.shape]));
    const empty = (n) => {
      const dims = shapes[n]?.map((d) => (typeof d === 'number' ? d : 0));
      if (!dims) throw new Error(`the session does not tell the shape of its input ${n}`);
      return new ort.Tensor('float32', new Float32Array(0), dims);
    };
    firstRunFeeds.set(session, { inverse_rows: rows(1), ...Object.fromEntries(formed.map((o) => [givenName(o), empty(givenName(o))])) });
  }
  return firstRunFeeds.get(session);
}

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
  validateMetadata(metadata, `metadata of ${modelName}`);
  const bytes = model instanceof Uint8Array ? model : new Uint8Array(model);
  const options = onCpu({ executionProviders: ['wasm'], ...sessionOptions }, CPU_SESSION);
  // Each graph's ONNX session opens once, when first needed (a failure stays: the same bytes
  // would fail again), and release() releases those that opened; with oneSession, opening
  // one first releases the one open.
  /** @type {Set<{ close: () => Promise<void> }>} */
  const graphs = new Set();
  let resident = null;
  const lazySession = (open) => {
    /** @type {Promise<any> | null} */
    let opening = null;
    const graph = {
      /** @type {any} the session, once open */
      session: null,
      // ahead: opened before any request needs it (the Worker is idle)
      open(ahead = false) {
        opening ??= (async () => {
          if (oneSession && resident && resident !== graph) await resident.close();
          graph.session = await open(ahead);
          if (oneSession) resident = graph;
          return graph.session;
        })();
        return opening;
      },
      async close() {
        const closing = opening;
        opening = null;
        graph.session = null;
        if (resident === graph) resident = null;
        await (await closing?.catch(() => null))?.release();
      },
    };
    graphs.add(graph);
    return graph;
  };
  // An ONNX session (opened with `graphOptions`) checked by `check`, released when the check fails.
  const checked = async (graphBytes, name, check, graphOptions = options) => {
    const s = await createOnnxSession(ort, graphBytes, graphOptions, name);
    try {
      check(s);
    } catch (err) {
      await s.release();
      throw err;
    }
    return s;
  };
  const explainerGraph = lazySession(() => checked(bytes, modelName, (s) => checkSessionContract(s, modelName, metadata)));

  // The split graphs' fit is checked now, from their bytes, and so are the names of the
  // explainer graph that opens later.
  let cacheInputs = [];
  if (split) {
    checkSessionContract(ioNames(bytes, modelName), modelName, { outputs: metadata.outputs });
    try {
      cacheInputs = checkSplitContract(ioNames(split.photo, 'its photo graph'), ioNames(split.target, 'its class graph'), modelName, graphOutputs(metadata));
    } catch (err) {
      throw new Error(err.message.startsWith(modelName) ? err.message : `${modelName}: cannot open its split graphs: ${err.message}`);
    }
  }
  // The graphs an explanation may run, smallest first; each opens once, when first needed.
  const explainers = [
    { name: modelName, bytes, outputs: graphOutputs(metadata), formed: [], graph: explainerGraph },
    ...families.map(({ name, bytes: graphBytes }) => ({
      name,
      bytes: graphBytes,
      ...checkFamilyContract(ioNames(graphBytes, name), name),
      graph: lazySession(() => checked(graphBytes, name, (s) => checkSessionShapes(s, name, metadata),
        onCpu(options, foldWeightParts ? FOLDED_FAMILY_SESSION : FAMILY_SESSION))),
    })),
  ].sort((a, b) => a.bytes.byteLength - b.bytes.byteLength);
  // The smallest graph with every output of `fetches`; the explainer graph has them all.
  const explainerFor = (fetches) => explainers.find((g) => fetches.every((o) => g.outputs.includes(o)));

  const photoGraph = lazySession((ahead) => checked(split.photo, 'its photo graph', (s) => checkSessionShapes(s, `${modelName} (its photo graph)`, metadata),
    onCpu(options, ahead ? AHEAD_PHOTO_SESSION : PHOTO_SESSION)));
  const classGraph = lazySession(() => createOnnxSession(ort, split.target, onCpu(options, CLASS_SESSION), 'its class graph'));
  const forwardGraph = forwardModel ? lazySession(() => openForward(ort, forwardModel, options, forwardName, metadata)) : null;
  if (!oneSession) {
    try {
      if (!split || !forwardModel) await (split && !split.later ? photoGraph : explainerGraph).open();
      await forwardGraph?.open();
    } catch (err) {
      await Promise.all([...graphs].map((g) => g.close()));
      throw err;
    }
  }

  const d = contractDims(metadata);
  const { blocks: B, heads: h, tokens: S, classes: C, height: H, width: W } = d;
  // Expected shape of each output for K target rows; the K-leading ones are sliced per row.
  const shapes = (K) => ({
    logits: [1, C],
    attn: [B, h, S, S],
    attn_grad: [K, B, h, S, S],
    attn_rel: [K, B, h, S, S],
    attn_rel_classic_last: [K, h, S, S],
    input_rel_classic: [K, H, W],
    input_rel_attnlrp: [K, H, W],
    input_rel_cp_lrp: [K, H, W],
  });

  function pixelsTensor(pixels) {
    const data = pixels?.data ?? pixels;
    if (!(data instanceof Float32Array) || data.length !== 3 * H * W) {
      throw new Error(`pixels must be a Float32Array of 3×${H}×${W} = ${3 * H * W} normalised values`
        + ` (got ${data?.constructor?.name ?? typeof data} of length ${data?.length})`);
    }
    return new ort.Tensor('float32', data, [1, 3, H, W]);
  }

  const outputs = graphOutputs(metadata);

  function checkShapes(result, fetches, K, graphName) {
    const expected = shapes(K);
    for (const name of fetches) {
      const t = result[name];
      if (!t) throw new Error(`${graphName} returned no "${name}"`);
      if (!sameDims(t.dims, expected[name])) {
        throw new Error(`${graphName}: output ${name} has shape [${t.dims.join(',')}], metadata implies [${expected[name].join(',')}]`);
      }
    }
  }

  // given: the denominators a run of the same photo formed (a oneSession model's class
  // switch), for the graph that formed them; a oneSession model's run without them fetches
  // those its graph forms (→ `formed`, null where none).
  async function run(pixels, rows, K, fetches, given = null) {
    const inputs = { pixels: pixelsTensor(pixels), target: new ort.Tensor('float32', rows, [K, C]) };
    const graph = explainerFor(fetches);
    const explainer = await graph.graph.open(); // opening it is not the run's time
    const reuse = given?.graph === graph.name ? given.tensors : null;
    const keep = oneSession && !reuse ? graph.formed : [];
    const feeds = { ...inputs, ...switchFeeds(ort, explainer.inputNames, fetches), ...denominatorFeeds(ort, explainer, graph.formed, reuse) };
    const started = now();
    const result = await explainer.run(feeds, [...fetches, ...keep]);
    const modelMs = now() - started;
    checkShapes(result, fetches, K, graph.name);
    const formed = keep.length ? { graph: graph.name, tensors: Object.fromEntries(keep.map((o) => [o, result[o]])) } : null;
    return { result, modelMs, graph: graph.name, formed };
  }

  // The graph outputs (besides logits) to fetch for `wanted`, in contract order; an
  // optional output this graph lacks is an error naming the method that reads it.
  function fetchList(wanted) {
    const known = [...CONTRACT_OUTPUTS, ...Object.keys(OPTIONAL_OUTPUTS)];
    const unknown = wanted.filter((o) => !known.includes(o));
    if (unknown.length) throw new Error(`unknown explainer outputs: ${unknown.join(', ')}`);
    const lacking = wanted.filter((o) => !outputs.includes(o));
    if (lacking.length) {
      throw new Error(`${modelName} cannot compute ${lacking.map((o) => OPTIONAL_OUTPUTS[o].method).join(', ')}: `
        + `it lacks output ${lacking.join(', ')} (an older export; re-export it: npm run build)`);
    }
    return outputs.filter((o) => o !== 'logits' && wanted.includes(o));
  }

  // Per target row views ({ data, shape } without the K axis) of the fetched outputs, under
  // their graph names; attn is one object shared by all rows.
  function perRowTensors(result, fetches, K) {
    /** @type {Record<string, { data: any, shape: number[] }>[]} */
    const perRow = Array.from({ length: K }, () => ({}));
    const expected = shapes(K);
    for (const name of fetches) {
      const data = result[name].data;
      if (name === 'attn') {
        const attn = { data, shape: expected.attn };
        perRow.forEach((t) => { t.attn = attn; });
      } else {
        const shape = expected[name].slice(1); // drop the K axis
        const size = data.length / K;
        perRow.forEach((t, k) => { t[name] = { data: data.subarray(k * size, (k + 1) * size), shape }; });
      }
    }
    return perRow;
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

  // The class each target row explains: its id, argmax(logits) for a predicted-class row
  // (null: the graph substitutes the top-1 class), null for a weight vector.
  const explainedClass = (row, logits) => (typeof row === 'number' ? row : row === null ? argmax(logits) : null);

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
        const logits = await runForward(pixelsTensor(pixels), 1);
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
      const fetches = fetchList(wanted);
      const K = rows.length;
      const { result, modelMs, graph, formed } = await run(pixels, targetRows(rows, C), K, ['logits', ...fetches], denominators);
      const logits = result.logits.data;
      return {
        logits,
        classes: rows.map((r) => explainedClass(r, logits)),
        tensors: perRowTensors(result, fetches, K),
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
      return explainerFor(['logits', ...fetchList(wanted)]).graph.session !== null;
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
      await explainerFor(['logits', ...fetchList(wanted)]).graph.open();
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
      const all = [...explainers.map((g) => g.graph), ...(split ? [photoGraph, classGraph] : []), ...(forwardGraph ? [forwardGraph] : [])];
      for (const graph of all) {
        await graph.open();
        onOpened();
      }
    },

    // The class-independent half of an explanation, once per photo: the photo graph's
    // outputs, kept as the class graph's feeds. → { logits, modelMs, feeds }
    async cachePhoto(pixels) {
      if (!split) throw new Error(`${modelName} was opened without its split graphs`);
      const photo = await photoGraph.open();
      const started = now();
      const result = await photo.run({ pixels: pixelsTensor(pixels) });
      const modelMs = now() - started;
      const expected = shapes(1);
      for (const name of ['logits', 'attn']) {
        if (!sameDims(result[name].dims, expected[name])) {
          throw new Error(`${modelName} photo graph: output ${name} has shape [${result[name].dims.join(',')}], metadata implies [${expected[name].join(',')}]`);
        }
      }
      const feeds = Object.fromEntries(cacheInputs.map((n) => [n, result[n]]));
      return { logits: result.logits.data, modelMs, feeds };
    },

    // explain() on a cachePhoto() result: the same return value, at the class graph's cost.
    async explainCached(cache, rows, { outputs: wanted = CONTRACT_OUTPUTS } = {}) {
      if (!split) throw new Error(`${modelName} was opened without its split graphs`);
      const fetches = fetchList(wanted);
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
      checkShapes(result, graphFetches, K, `${modelName} class graph`);
      const logits = cache.logits;
      return {
        logits,
        classes: rows.map((r) => explainedClass(r, logits)),
        tensors: perRowTensors({ ...result, attn: cache.feeds.attn }, fetches, K),
        timings: { modelMs },
      };
    },

    async release() {
      await Promise.all([...graphs].map((g) => g.close()));
    },
  };
}
