// The Worker's side of the page's Attribution panel: Self-Attention Attribution
// (runtime/attribution.js, METHODS.md) of one class on an analysed photo. Its own script,
// which web/worker.js loads on the first request: embeds never download it. The model's
// attribution graphs are downloaded and opened on the first request; a photo's hidden
// states (the forward below every block) are computed once and kept with the photo, so
// a second class on it runs the block graphs alone. A text is its token ids (runtime/text-cache.js
// keeps them as its "pixels"), which a text model's graphs take as input_ids. The work is
// split into one step per block: web/worker/queue.js queues each step anew, so requests sent
// during a run are answered between blocks and a cancel takes effect before the next block.
import { openAttribution, probabilityOf } from '../runtime/attribution.js';
import { fetchModelBytes } from './lib/model-fetch.js';
import { REPLY } from './lib/protocol.js';

// α copies per graph run. runtime/attribution.js batches 10 in Node; in the page 2 keep
// the Worker's WebAssembly heap (it never shrinks) within the page's 1 GB budget, at the
// same matrix-product work (DeiT-tiny block 0: ≈ 60 MB of records per copy; the page
// holds ≈ 890 MB before any attribution, bench/attribute-page.js).
const STEPS_PER_RUN = 2;
// Without the arena each block graph's buffers return to the heap's allocator after its
// run, and each block's session (with its own copy of the weights) is released after the
// block, so the next block reuses that memory: kept, the B sessions took the page past
// 1 GB by block 4 of 12.
const SESSION_OPTIONS = { enableCpuMemArena: false };
const MAX_STEPS = 1000;

const opened = new WeakMap(); // a model's photo sessions → Promise of its opened attribution graphs
// For the stats request: graph runs of the block graphs and of the hidden-states graph.
const runs = { blocks: 0, states: 0 };
export const attributionRuns = () => ({ ...runs });

async function openFor(photoCache, ort) {
  const files = photoCache.entry.attribution;
  if (!files) throw new Error(`model ${photoCache.entry.name} has no attribution graphs in models/index.json (npm run build writes them)`);
  const get = async (file) => (await fetchModelBytes(new URL(file, photoCache.base).href, { sha256: photoCache.entry.sha256?.[file] })).bytes;
  return openAttribution({
    ort,
    sessionOptions: SESSION_OPTIONS,
    metadata: photoCache.metadata,
    weightsName: files.weights,
    files: { states: await get(files.states), blocks: await Promise.all(files.blocks.map(get)), weights: await get(files.weights) },
  });
}

function graphsOf(photoCache, ort) {
  let p = opened.get(photoCache);
  if (!p) {
    p = openFor(photoCache, ort);
    opened.set(photoCache, p);
    p.catch(() => opened.delete(photoCache)); // a later request may retry
  }
  return p;
}

// Frees the sessions of a model's attribution graphs (its model is unloaded).
export async function forget(photoCache) {
  const graphs = opened.get(photoCache);
  opened.delete(photoCache);
  await (await graphs?.catch(() => null))?.release();
}

// Checks the request's fields against the model before anything is downloaded or run.
function checkRequest({ target, blocks, steps }, metadata) {
  const { blocks: B } = metadata.architecture;
  const C = metadata.labels.length;
  if (!Number.isInteger(target) || target < 0 || target >= C) throw new Error(`attribute: target must be a class id 0..${C - 1}, got ${target}`);
  if (!Number.isInteger(steps) || steps < 1 || steps > MAX_STEPS) throw new Error(`attribute: steps must be an integer 1..${MAX_STEPS}, got ${steps}`);
  if (!Array.isArray(blocks) || !blocks.length) throw new Error('attribute: blocks must be a non-empty list of block indices');
  for (const b of blocks) if (!Number.isInteger(b) || b < 0 || b >= B) throw new Error(`attribute: block ${b} is not a block index 0..${B - 1}`);
  if (new Set(blocks).size !== blocks.length) throw new Error(`attribute: blocks repeat an index: ${blocks.join(',')}`);
}

// Runs the first part (graphs, hidden states) and returns the step of the first block;
// each step returns the next one, the last returns nothing.
export async function attribute(msg, reply, { photoCache, photo, ort }) {
  const { imageId, target, blocks, steps } = msg;
  checkRequest(msg, photoCache.metadata);
  const graphs = await graphsOf(photoCache, ort);
  if (!photo.hiddenStates) {
    runs.states++;
    photo.hiddenStates = graphs.hiddenStates(photo.pixels.data ?? photo.pixels); // core.preprocess gives { data, shape }
  }
  photo.hiddenStates.catch(() => { photo.hiddenStates = null; });
  const { logits, hidden } = await photo.hiddenStates;
  reply({ type: REPLY.ATTRIBUTION_START, imageId, target, prob: probabilityOf(logits, target), blocks, steps });

  const step = (i) => async () => {
    const r = await graphs.attributeBlock(hidden, blocks[i], target, { steps, stepsPerRun: STEPS_PER_RUN });
    await graphs.releaseBlock(blocks[i]);
    runs.blocks++;
    reply({
      type: REPLY.ATTRIBUTION_BLOCK, imageId, target, steps, block: r.block, done: i + 1, total: blocks.length,
      attr: r.attr, probs: r.probs,
    }, [r.attr.buffer, r.probs.buffer]);
    return i + 1 < blocks.length ? step(i + 1) : undefined;
  };
  return step(0);
}
