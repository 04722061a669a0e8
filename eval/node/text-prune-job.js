// Node-only: Self-Attention Attribution's head pruning (eval/prune-heads-protocol.js,
// the kind eval/prune-heads.js) on a text model, over a labelled sentence file
// (SST-2's `label<TAB>sentence`, as ../shared/text/sst2/dev.tsv): the first --rank-texts
// sentences rank the heads (the labelled class), the rest are held out and classified
// through GRAPH.masked.onnx under each measure's masks. The same records, summary and
// reports as the photos' (so `eval merge` joins shards); the sentences of a batch share
// one length (the graph has no padding).
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeData } from './data-identity.js';
import { selectItems } from './shard.js';
import { pruningPlan, takeComputed } from './prune-plan.js';
import { fileSha256 } from '../../runtime/node/file-sha256.js';
import { loadEngine } from '../../runtime/node/ort-engine.js';
import { forwardPathFor } from '../../runtime/node/open-explainer.js';
import { readVocab, sharedTextFiles } from '../../runtime/node/open-text.js';
import { attributionPaths, checkAttributionFiles, openAttributionFiles } from '../../runtime/node/open-attribution.js';
import { UserError } from '../../runtime/errors.js';
import { openTextExplainer } from '../../runtime/text-explainer.js';
import { openMaskedTextForward } from '../../runtime/text-masked.js';
import { textTokenizer, tokenizeText } from '../../runtime/text-cache.js';
import { textDims } from '../../runtime/text-metadata.js';
import { RATES, evaluateBatch, keptPerBlock, rankPhoto } from '../prune-heads-protocol.js';

// `label<TAB>sentence` lines (a header line allowed) → [{ name, text, label, rank }] in file order.
export async function sentenceItems({ data: file, rankTexts }, metadata) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the sentences ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  const C = metadata.labels.length;
  // A header line (SST-2's "label<TAB>content") is not a sentence.
  const lines = text.split(/\r?\n/).filter((l) => l.trim()).filter((l, i) => i > 0 || /^\d+\t/.test(l));
  const digits = String(lines.length).length;
  const items = lines.map((line, i) => {
    const m = /^(\d+)\t(.+)$/.exec(line);
    if (!m || Number(m[1]) >= C) throw new UserError(`${file} line ${i + 1} is not "<label 0..${C - 1}><TAB><sentence>"`);
    return { name: `s${String(i).padStart(digits, '0')}`, file, text: m[2], label: Number(m[1]), rank: i < rankTexts };
  });
  if (rankTexts >= items.length) throw new UserError(`--rank-texts ${rankTexts} leaves no held-out sentence: ${file} has ${items.length}`);
  const data = await describeData({ images: path.dirname(file), labels: file, files: [{ name: path.basename(file), file }] });
  return { items, data, notes: [`ranking on the first ${rankTexts} sentence(s), ${items.length - rankTexts} held out`] };
}

// The explainer graph (for attention and its gradient), the tokenizer, the masked forward.
async function openTextModels(graph, metadata, core, { engine, threads }) {
  const runtime = await loadEngine(engine, { threads });
  const forwardPath = forwardPathFor(graph);
  const shared = await sharedTextFiles(graph); // the family graphs over one weights file, when listed
  const explainer = await openTextExplainer({
    ort: runtime.ort, model: await readFile(graph), metadata, modelName: path.basename(graph), families: shared?.families,
    sessionOptions: { ...runtime.sessionOptions, ...(shared && { externalData: [shared.weights] }) },
    forwardModel: existsSync(forwardPath) ? await readFile(forwardPath) : undefined, forwardName: path.basename(forwardPath),
  });
  const files = attributionPaths(graph, metadata.architecture.blocks);
  const masked = await openMaskedTextForward({
    ort: runtime.ort, metadata, sessionOptions: runtime.sessionOptions,
    bytes: await readFile(files.masked), weights: await readFile(files.weights), weightsName: path.basename(files.weights),
  });
  const tokenizer = textTokenizer(core, await readVocab(graph, metadata), metadata);
  return { explainer, masked, tokenizer, engine: runtime.name };
}

export const textPruneJob = {
  unit: 'sentence',

  selectItems(items, shard, limit) {
    return [...items.filter((i) => i.rank), ...selectItems(items.filter((i) => !i.rank), shard, limit)];
  },

  // opts: the CLI's (measures, rankTexts, steps, seed, batch, out, engine, threads).
  async prepare({ graph, metadata, core, opts, items }) {
    const by = opts.measures;
    const paths = checkAttributionFiles(graph, metadata.architecture.blocks, { masked: true });
    if (by.includes('attribution')) checkAttributionFiles(graph, metadata.architecture.blocks);
    const { explainer, masked, tokenizer, engine } = await openTextModels(graph, metadata, core, opts);
    const { blocks, heads, maxTokens, classes: C } = textDims(metadata);
    const settings = {
      model: metadata.name,
      graphSha256: await fileSha256(graph),
      maskedSha256: await fileSha256(paths.masked),
      attributionSha256: by.includes('attribution') ? await fileSha256(paths.weights) : null,
      engine,
      tokenizer: metadata.tokenizer,
      unit: 'sentence',
      by,
      rankImages: opts.rankTexts,
      steps: opts.steps,
      seed: opts.seed,
      blocks,
      heads,
      rates: RATES,
      perBlockKept: keptPerBlock(heads),
    };
    let attribution = null;
    const idsOf = (item) => BigInt64Array.from(tokenizeText(tokenizer, item.text, maxTokens, `${item.name}`).tokenized.ids, BigInt);
    const rankNames = items.filter((i) => i.rank).map((i) => i.name);
    const masksOnce = pruningPlan({ out: opts.out, rankNames, settings, heads, noun: 'sentence' });
    const cache = new Map();
    const counts = { ranked: 0, rankMs: 0, evaluated: 0, evalMs: 0 };
    const evaluate = async (item, upcoming) => {
      if (cache.has(item.name)) return takeComputed(cache, item.name);
      const started = performance.now();
      const first = idsOf(item);
      const batch = [{ item, ids: first }];
      for (const next of upcoming(opts.batch - 1)) {
        const ids = idsOf(next);
        if (ids.length === first.length) batch.push({ item: next, ids });
      }
      const ids = new BigInt64Array(batch.length * first.length);
      batch.forEach((b, i) => ids.set(b.ids, i * first.length));
      const records = await evaluateBatch({ masked, pixels: ids, labels: batch.map((b) => b.item.label), plan: await masksOnce(), C });
      batch.slice(1).forEach((b, i) => cache.set(b.item.name, records[i + 1]));
      counts.evaluated += batch.length;
      counts.evalMs += performance.now() - started;
      return records[0];
    };
    const processItem = async (item, { upcoming }) => {
      if (!item.rank) return evaluate(item, upcoming);
      const started = performance.now();
      if (by.includes('attribution')) attribution ??= await openAttributionFiles(graph, metadata, { threads: opts.threads, engine: opts.engine });
      const record = await rankPhoto({ explainer, attribution, core, pixels: idsOf(item), label: item.label, by, steps: opts.steps });
      counts.ranked++;
      counts.rankMs += performance.now() - started;
      return record;
    };
    const describe = () => `ranked ${counts.ranked} sentence(s) in ${(counts.rankMs / 1000).toFixed(1)} s; `
      + `evaluated ${counts.evaluated} held-out sentence(s) under the masks in ${(counts.evalMs / 1000).toFixed(1)} s`;
    const release = async () => {
      tokenizer.free();
      await attribution?.release();
      await masked.release();
      await explainer.release();
    };
    return { settings, processItem, describe, release };
  },
};
