// @ts-check
// Opening onnxruntime's ONNX sessions and holding them: an opening whose error names the
// graph (and a missing weights file), a session checked before it is handed out, and the
// residency of a model's graphs (each opens once, when first needed; a large model keeps
// one open at a time). Environment-neutral: the caller passes the `ort` module.
import { graphIoNames } from './onnx-io.js';

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

// An ONNX session checked by `check(session)`, released when the check fails.
export async function checkedOnnxSession(ort, bytes, options, name, check) {
  const session = await createOnnxSession(ort, bytes, options, name);
  try {
    check(session);
  } catch (err) {
    await session.release();
    throw err;
  }
  return session;
}

// A graph's input and output names without an ONNX session, or an error naming it.
export function ioNames(bytes, name) {
  try {
    return graphIoNames(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));
  } catch (err) {
    throw new Error(`${name} is not an ONNX model: ${err.message}`);
  }
}

/**
 * @typedef {{ session: any, open: (ahead?: boolean) => Promise<any>, close: () => Promise<void> }} LazyGraph
 *   one graph's ONNX session: `session` once open; `open(ahead)` opens it once (ahead:
 *   before any request needs it, the Worker being idle) and gives it; `close()` releases it.
 */

// The ONNX sessions of one model's graphs. lazy(open) → a LazyGraph whose session
// `open(ahead)` makes, at most once (a failure stays: the same bytes would fail again);
// releaseAll() releases those that opened. With oneSession (a large model,
// LARGE_WEIGHTS_BYTES) opening one first releases the one open: the caller runs one
// request at a time (the Worker's queue), so the session released is never one in use.
export function graphResidency(oneSession) {
  /** @type {Set<LazyGraph>} */
  const graphs = new Set();
  /** @type {LazyGraph | null} */
  let resident = null;
  /** @param {(ahead: boolean) => Promise<any>} open @returns {LazyGraph} */
  const lazy = (open) => {
    /** @type {Promise<any> | null} */
    let opening = null;
    /** @type {LazyGraph} */
    const graph = {
      session: null,
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
  const releaseAll = () => Promise.all([...graphs].map((g) => g.close())).then(() => {});
  return { lazy, releaseAll };
}
