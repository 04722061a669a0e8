// Node-only: the ERASER Movie Reviews evaluation (eval/rationales.js) of a text
// model: the reviews of one split (DATA/<split>.jsonl, texts in DATA/docs/<id>), each
// explained for its labelled class by every method (transformer_attribution from the last
// block, as the official pipeline calls it; the other methods as defined, from block 0),
// each map turned into ERASER word scores and the 80 best words kept (rationale-f1.js).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeData } from './data-identity.js';
import { UnreadableError } from './run.js';
import { fileSha256 } from '../../runtime/node/file-sha256.js';
import { UserError } from '../../runtime/errors.js';
import { resolveClass } from '../../runtime/targets.js';
import { RATIONALE_KS, humanWords, randomWords, topWords, tokenWords, wordScores, wordSpans } from '../rationale-f1.js';

// Methods whose start layer the protocol fixes at the last block (METHODS.md).
const FROM_LAST = ['transformer_attribution'];
const K_MAX = RATIONALE_KS.at(-1);

// ERASER's POS/NEG → the model's class (its labels name the classes, e.g. negative/positive).
function classOf(metadata, classification, where) {
  const name = { POS: 'positive', NEG: 'negative' }[classification];
  if (!name) throw new UserError(`${where}: classification ${JSON.stringify(classification)} is neither POS nor NEG`);
  try {
    return resolveClass(metadata, name, 'label');
  } catch {
    throw new UserError(`${where}: the model has no class "${name}" (its classes: ${metadata.labels.join(', ')})`);
  }
}

// → { items: [{ name (doc id), file, label, truth }], data, notes }
export async function reviewItems({ data: dir, split }, metadata) {
  const file = path.join(dir, `${split}.jsonl`);
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the ERASER split ${file}: ${err.code === 'ENOENT' ? 'no such file (--data is the folder of {train,val,test}.jsonl and docs/)' : err.message}`);
  }
  const items = text.split('\n').filter((l) => l.trim()).map((line, i) => {
    let ann;
    try {
      ann = JSON.parse(line);
    } catch {
      throw new UserError(`${file} line ${i + 1} is not JSON`);
    }
    const docid = ann.evidences?.flat()[0]?.docid ?? ann.annotation_id;
    return { name: docid, file: path.join(dir, 'docs', docid), label: classOf(metadata, ann.classification, `${file} line ${i + 1}`), truth: humanWords(ann) };
  }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!items.length) throw new UserError(`${file} holds no review`);
  const data = await describeData({ images: dir, labels: file, files: items });
  return { items, data, notes: [] };
}

// One review → its record. explainer: the Node API's text explainer; methods split into
// those from block 0 and those from the last block.
async function reviewRecord(explainer, item, { early, late, last }) {
  let text;
  try {
    text = await readFile(item.file, 'utf8');
  } catch (err) {
    throw new UnreadableError(`cannot read review ${item.file}: ${err.message}`);
  }
  const doc = explainer.open(text);
  try {
    const targets = [item.label];
    const runs = [];
    if (early.length) runs.push(await doc.explain({ targets, methods: early, startLayer: 0 }));
    if (late.length) runs.push(await doc.explain({ targets, methods: late, startLayer: last }));
    const owner = tokenWords(doc.tokens, doc.offsets, wordSpans(text));
    const top = {};
    for (const run of runs) {
      for (const [m, map] of Object.entries(run.targets[0].maps)) top[m] = topWords(wordScores(map.data, owner), K_MAX);
    }
    const read = Math.max(-1, ...owner) + 1; // the words the model read
    return { label: item.label, predicted: runs[0].top5[0].id, truncated: Boolean(doc.truncated), truth: item.truth, top, random: randomWords(read, K_MAX, item.name) };
  } finally {
    doc.close();
  }
}

export const rationalesJob = {
  unit: 'review',

  // explainer: loadExplainer's text explainer; methods: ids it computes in one run.
  async prepare({ explainer, modelFile, methods, opts }) {
    const last = explainer.metadata.architecture.blocks - 1;
    const late = methods.filter((m) => FROM_LAST.includes(m));
    const early = methods.filter((m) => !FROM_LAST.includes(m));
    const settings = {
      model: explainer.metadata.name,
      graphSha256: await fileSha256(modelFile),
      engine: explainer.engine,
      methods,
      startLayers: Object.fromEntries(methods.map((m) => [m, late.includes(m) ? last : 0])),
      split: opts.split,
      ks: RATIONALE_KS,
      randomSeed: 0,
    };
    let reviews = 0;
    const started = performance.now();
    const processItem = async (item) => {
      const record = await reviewRecord(explainer, item, { early, late, last });
      reviews++;
      return record;
    };
    const describe = () => {
      const s = (performance.now() - started) / 1000;
      return `${reviews} review(s) explained in ${s.toFixed(1)} s${reviews ? ` (${(s / reviews).toFixed(2)} s each, ${methods.length} methods)` : ''}`;
    };
    return { settings, processItem, describe };
  },

  summaryLines(s, methods) {
    return [
      `accuracy ${(s.accuracy * 100).toFixed(2)} %; token F1 (instance macro) at k = ${s.ks.filter((k) => [10, 20, 40, 80].includes(k)).join(' / ')}:`,
      ...[...methods, 'random'].map((m) => `  ${m.padEnd(26)} ${[10, 20, 40, 80].map((k) => s.macroF1[m][s.ks.indexOf(k)].toFixed(3)).join(' ')}`),
    ];
  },
};
