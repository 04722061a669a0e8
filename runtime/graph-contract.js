// @ts-check
// What each graph of a model must have to be run as the explainer graph contract says
// (docs/architecture.md, "The explainer graph contract"): the plain forward graph, the
// split graphs, the method families' graphs, the outputs an explanation may fetch, and the
// feeds that switch passes and denominators on or off.
import { checkSessionShapes, CONTRACT_OUTPUTS, OPTIONAL_OUTPUTS } from './metadata.js';

// A plain forward graph: one input (the pixels), logits as its first output.
export function checkForwardSession(session, name, metadata) {
  if (session.inputNames.length !== 1 || !session.outputNames.length) {
    throw new Error(`${name} is not a plain forward graph (inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')}): it needs one input, the pixels, and the logits as output`);
  }
  checkSessionShapes(session, name, metadata);
}

// Each switch input and the output it computes (contract: 1 exactly when that output is
// fetched, since each is a costly pass only its methods read). pixel_relevance is in every
// graph; a graph exported before AttnLRP/CP-LRP lacks the other two and is not fed them.
const SWITCHES = {
  pixel_relevance: 'input_rel_classic',
  ...Object.fromEntries(Object.entries(OPTIONAL_OUTPUTS).map(([output, { input }]) => [input, output])),
};

export function switchFeeds(ort, inputNames, fetches) {
  return Object.fromEntries(Object.entries(SWITCHES).filter(([input]) => inputNames.includes(input))
    .map(([input, output]) => [input, new ort.Tensor('float32', new Float32Array([fetches.includes(output) ? 1 : 0]), [])]));
}

// The split graphs (models/exporter/split.py) must fit each other: every input of the
// class graph but `target` (its target rows) and the switches is an output of the photo
// graph. → the class graph's inputs the photo graph feeds (a photo's cache).
export function checkSplitContract(photo, classGraph, name, outputs) {
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
export function checkFamilyContract({ inputNames, outputNames }, name) {
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
export function denominatorFeeds(ort, session, formed, given) {
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

// The graph outputs (besides logits) to fetch for `wanted`, in contract order, of a model
// whose graph has `outputs`; an optional output it lacks is an error naming the method
// that reads it.
export function fetchList(wanted, outputs, modelName) {
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
