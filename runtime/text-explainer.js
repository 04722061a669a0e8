// @ts-check
// Runs a text model's graphs (docs/architecture.md, "Text models": input_ids [1,S] in
// place of the pixels, [S] in place of [H,W]) with onnxruntime-web and hands back each
// target row's tensors, ready for core.computeMaps: the same object as
// runtime/explainer.js's openExplainer gives, so runtime/photo-cache.js explains a text
// as it explains a photo. The graphs: the explainer graph (every output) and, when given,
// the method family graphs (models/exporter/text/families.py: the outputs one family of
// methods reads, and only the passes they need) and the plain forward graph (predict(), the
// benchmark's reference). A request runs the smallest graph that has every output it
// fetches; each graph's ONNX session opens when first run (runtime/onnx-session.js), or,
// without family graphs, the explainer's at once. Environment-neutral: the caller passes
// `ort` and the bytes (and, in sessionOptions.externalData, the weights file they share).
import { validateMetadata, checkSessionShapes, graphOutputs, CONTRACT_OUTPUTS, OPTIONAL_OUTPUTS } from './metadata.js';
import { TEXT_INPUTS, TEXT_SWITCHES, kindMismatch, textDims, textShapes } from './text-metadata.js';
import { targetRows } from './targets.js';
import { argmax, sameDims } from './graph-tensors.js';
import { checkedOnnxSession, graphResidency, ioNames } from './onnx-session.js';
import { onCpu, CPU_SESSION, FORWARD_SESSION, TEXT_FAMILY_SESSION } from './session-options.js';

const now = () => (globalThis.performance ?? Date).now();

// The explainer graph's input names against the contract's (and the switches of the outputs declared).
function checkTextSession(session, name, outputs) {
  const inputs = [...TEXT_INPUTS, ...Object.entries(TEXT_SWITCHES).filter(([, o]) => outputs.includes(o)).map(([i]) => i)];
  const missingIn = inputs.filter((n) => !session.inputNames.includes(n));
  const missingOut = outputs.filter((n) => !session.outputNames.includes(n));
  if (missingIn.length || missingOut.length) {
    const parts = [missingIn.length && `inputs ${missingIn.join(', ')}`, missingOut.length && `outputs ${missingOut.join(', ')}`].filter(Boolean);
    throw new Error(`${name} lacks ${parts.join(' and ')} expected of a text explainer graph `
      + `(it has inputs ${session.inputNames.join(', ')}; outputs ${session.outputNames.join(', ')})`);
  }
}

// A family graph's names, from its bytes: its outputs logits and some of the metadata's,
// its inputs input_ids and, for each switched output it has, the switch. → its outputs.
function checkTextFamily({ inputNames, outputNames }, name, outputs) {
  const problems = [];
  const unknown = outputNames.filter((o) => !outputs.includes(o));
  if (unknown.length) problems.push(`its outputs ${unknown.join(', ')} are not the model's`);
  if (!outputNames.includes('logits')) problems.push('it lacks output logits');
  const needed = ['input_ids', ...Object.entries(TEXT_SWITCHES).filter(([, o]) => outputNames.includes(o)).map(([i]) => i)];
  const missing = needed.filter((n) => !inputNames.includes(n));
  if (missing.length) problems.push(`it lacks inputs ${missing.join(', ')}`);
  if (problems.length) throw new Error(`${name} is not a text model's family graph: ${problems.join('; ')}`);
  return outputNames;
}

/**
 * ids: each text's token ids as a BigInt64Array [S] (runtime/text-cache.js encodes them).
 * families: each family graph's name and bytes (index.json's split.families).
 * @param {{ ort: any, model: ArrayBuffer | Uint8Array, metadata: object, sessionOptions?: object, modelName?: string,
 *   forwardModel?: ArrayBuffer | Uint8Array, forwardName?: string, families?: { name: string, bytes: ArrayBuffer | Uint8Array }[] }} options
 */
export async function openTextExplainer({
  ort, model, metadata, sessionOptions = {}, modelName = 'model.onnx', forwardModel, forwardName = 'forward.onnx', families = [],
}) {
  if (!ort?.InferenceSession) throw new Error('openTextExplainer needs the onnxruntime-web module as `ort`');
  validateMetadata(metadata, `metadata of ${modelName}`);
  const wrongKind = kindMismatch(metadata, 'text');
  if (wrongKind) throw new Error(`openTextExplainer: ${wrongKind}`);
  const options = onCpu({ executionProviders: ['wasm'], ...sessionOptions }, CPU_SESSION);
  const outputs = graphOutputs(metadata);
  const dims = textDims(metadata);
  const { classes: C, maxTokens } = dims;
  const { lazy, releaseAll } = graphResidency(false);
  const opened = (bytes, name, sessionKind, check) => lazy(() => checkedOnnxSession(ort, bytes, onCpu(options, sessionKind), name, check));
  // The graphs a request may run, smallest first (a graph's bytes follow its nodes, and so
  // does its session's opening: docs/experiments.md, "Text family graphs").
  const graphs = [
    { name: modelName, bytes: model, outputs, graph: opened(model, modelName, CPU_SESSION, (s) => { checkTextSession(s, modelName, outputs); checkSessionShapes(s, modelName, metadata); }) },
    // A family opens with optimisation off (the exporter checked its outputs so against the explainer's).
    ...families.map(({ name, bytes }) => ({
      name, bytes, outputs: checkTextFamily(ioNames(bytes, name), name, outputs), graph: opened(bytes, name, TEXT_FAMILY_SESSION, (s) => checkSessionShapes(s, name, metadata)),
    })),
  ].sort((a, b) => a.bytes.byteLength - b.bytes.byteLength);
  const forward = forwardModel ? opened(forwardModel, forwardName, FORWARD_SESSION, () => {}) : null;
  try {
    // Without family graphs the explainer's opens now (as before them); the forward's is small.
    if (!families.length) await graphs[0].graph.open();
    else checkTextSession(ioNames(model, modelName), modelName, outputs);
    await forward?.open();
  } catch (err) {
    await releaseAll();
    throw err;
  }
  // The smallest graph with every output of `fetches`; the explainer graph has them all.
  const graphFor = (fetches) => graphs.find((g) => fetches.every((o) => g.outputs.includes(o)));

  function idsTensor(ids) {
    if (!(ids instanceof BigInt64Array) || ids.length < 2 || ids.length > maxTokens) {
      throw new Error(`input_ids must be a BigInt64Array of 2..${maxTokens} token ids (got ${ids?.constructor?.name ?? typeof ids} of length ${ids?.length})`);
    }
    return new ort.Tensor('int64', ids, [1, ids.length]);
  }

  // The outputs to fetch besides logits, in contract order; one the graph lacks names its method.
  function fetchList(wanted) {
    const unknown = wanted.filter((o) => !CONTRACT_OUTPUTS.includes(o) && !(o in OPTIONAL_OUTPUTS));
    if (unknown.length) throw new Error(`unknown explainer outputs: ${unknown.join(', ')}`);
    const lacking = wanted.filter((o) => !outputs.includes(o));
    if (lacking.length) {
      throw new Error(`${modelName} cannot compute ${lacking.map((o) => OPTIONAL_OUTPUTS[o]?.method ?? o).join(', ')}: it lacks output ${lacking.join(', ')}`);
    }
    return outputs.filter((o) => o !== 'logits' && wanted.includes(o));
  }

  // Every switch the graph has is fed: 1 exactly when its output is fetched.
  const switches = (session, fetches) => Object.fromEntries(Object.entries(TEXT_SWITCHES).filter(([input]) => session.inputNames.includes(input))
    .map(([input, output]) => [input, new ort.Tensor('float32', new Float32Array([fetches.includes(output) ? 1 : 0]), [])]));

  // Per target row views ({ data, shape } without the K axis); attn is one object for all rows.
  function perRowTensors(result, fetches, K, S) {
    const expected = textShapes(dims, K, S);
    /** @type {Record<string, { data: any, shape: number[] }>[]} */
    const perRow = Array.from({ length: K }, () => ({}));
    for (const name of fetches) {
      const t = result[name];
      if (!t || !sameDims(t.dims, expected[name])) {
        throw new Error(`${modelName}: output ${name} has shape [${t?.dims.join(',')}], a text of ${S} tokens implies [${expected[name].join(',')}]`);
      }
      if (name === 'attn') {
        const attn = { data: t.data, shape: expected.attn };
        perRow.forEach((row) => { row.attn = attn; });
      } else {
        const size = t.data.length / K;
        perRow.forEach((row, k) => { row[name] = { data: t.data.subarray(k * size, (k + 1) * size), shape: expected[name].slice(1) }; });
      }
    }
    return perRow;
  }

  const checkLogits = (logits, n, graph) => {
    if (!sameDims(logits.dims, [n, C])) throw new Error(`${graph}: logits have shape [${logits.dims.join(',')}], the metadata implies [${n},${C}]`);
    return logits.data;
  };

  return {
    metadata,
    dims,
    outputs,
    oneSession: false,
    canCachePhoto: false,
    get hasForward() { return forward !== null; },
    isOpenFor: () => true,
    // The graphs' names and whether each session is open (tests, the benchmark).
    graphs: () => graphs.map((g) => ({ name: g.name, outputs: g.outputs, open: g.graph.session !== null })),
    // Every graph's session opened and checked (a folder the visitor brought, before it
    // replaces a kept one).
    async openAll() {
      for (const g of [...graphs.map((r) => r.graph), ...(forward ? [forward] : [])]) await g.open();
    },

    // Logits only: the plain forward graph when given, else a logits-only run of the explainer.
    async predict(ids) {
      const started = now();
      if (forward) {
        const session = await forward.open();
        const result = await session.run({ [session.inputNames[0]]: idsTensor(ids) });
        const logits = checkLogits(result[session.outputNames.includes('logits') ? 'logits' : session.outputNames[0]], 1, forwardName);
        return { logits, timings: { modelMs: now() - started } };
      }
      const out = await this.explain(ids, [null], { outputs: [] });
      return { logits: out.logits, timings: out.timings };
    },

    // rows: class ids, weight vectors or null (the predicted class), as runtime/explainer.js.
    // → { logits, classes, tensors, timings, graph, denominators: null }
    async explain(ids, rows, { outputs: wanted = CONTRACT_OUTPUTS } = {}) {
      const fetches = fetchList(wanted);
      const K = rows.length;
      const { name, graph } = graphFor(fetches);
      const openStarted = now();
      const session = await graph.open();
      const openMs = now() - openStarted;
      // A family graph that reads no target rows (the attention family) takes none.
      const feeds = {
        input_ids: idsTensor(ids),
        ...(session.inputNames.includes('target') && { target: new ort.Tensor('float32', targetRows(rows, C), [K, C]) }),
        ...switches(session, fetches),
      };
      const started = now();
      const result = await session.run(feeds, ['logits', ...fetches]);
      const modelMs = now() - started;
      const logits = checkLogits(result.logits, 1, name);
      return {
        logits,
        classes: rows.map((r) => (typeof r === 'number' ? r : r === null ? argmax(logits) : null)),
        tensors: perRowTensors(result, fetches, K, ids.length),
        timings: { modelMs, openMs },
        graph: name,
        denominators: null,
      };
    },

    async release() {
      await releaseAll();
    },
  };
}
