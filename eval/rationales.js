// @ts-check
// The ERASER Movie Reviews evaluation as an evaluation kind (eval/node/run.js):
// a review's record is { label, predicted, truth: [the human rationale's word indices],
// top: { method: [its 80 best words, best first] }, random: [80 words drawn at random] }
// (rationale-f1.js); the summary is the token-level F1 (instance-macro and micro) of every
// method and of the random baseline at k = 5, 10 … 80, with
// the model's accuracy on the reviews; reports: Markdown, CSV and the F1-against-k plot.
import { RATIONALE_KS, tokenF1 } from './rationale-f1.js';
import { markdownTable, csvTable, skippedLines } from './report-table.js';
import { lineChartSvg } from './report-svg.js';

// The ks of the README's table.
export const TABLE_KS = [10, 20, 40, 80];

export const kind = {
  name: 'rationales',

  itemUnit: () => 'review',

  itemKey: (item) => item.name,

  summarize(records, settings) {
    const ks = settings.ks ?? RATIONALE_KS;
    const n = records.length;
    const correct = records.filter((r) => r.predicted === r.label).length;
    const macro = {};
    const micro = {};
    // The random baseline beside the methods, under the name `random`.
    for (const m of [...settings.methods, 'random']) {
      const scores = ks.map((k) => tokenF1(records.map((r) => ({ truth: r.truth, pred: (m === 'random' ? r.random : r.top[m]).slice(0, k) }))));
      macro[m] = scores.map((s) => s.macro.f1);
      micro[m] = scores.map((s) => s.micro.f1);
    }
    return {
      n, accuracy: n ? correct / n : 0, ks, methods: settings.methods, model: settings.model, split: settings.split,
      startLayers: settings.startLayers, truncated: records.filter((r) => r.truncated).length, macroF1: macro, microF1: micro,
    };
  },

  reports(summary) {
    const { ks } = summary;
    const methods = [...summary.methods, 'random'];
    const at = (m, k, table) => table[m][ks.indexOf(k)];
    const shown = TABLE_KS.filter((k) => ks.includes(k));
    const rows = methods.map((m) => [m, ...shown.map((k) => at(m, k, summary.macroF1)), ...shown.map((k) => at(m, k, summary.microF1))]);
    const md = [
      `# ERASER Movie Reviews: ${summary.model}, ${summary.n} ${summary.split} reviews, accuracy ${(summary.accuracy * 100).toFixed(2)} %`,
      '',
      'Token-level F1 of the k highest-scoring words (one-word hard rationales) against the human',
      'rationales, explaining the labelled class (ERASER\'s score_hard_rationale_predictions on tokens:',
      'macro = mean of the reviews\' F1, micro = over all words). Word score = max of its pieces,',
      `clamped at 0. ${summary.truncated} review(s) were cut at the model's positions (their later words are never chosen;`,
      `their rationales still count). random: k words drawn at random from those read (the baseline). Start layers: ${summary.methods.map((m) => `${m} ${summary.startLayers[m]}`).join(', ')}.`,
      '',
      ...skippedLines(summary, 'review'),
      markdownTable(['method', ...shown.map((k) => `macro F1 k=${k}`), ...shown.map((k) => `micro F1 k=${k}`)], rows, { precision: 4 }),
      '',
    ].join('\n');
    const csvRows = methods.flatMap((m) => [[m, 'macro', ...summary.macroF1[m]], [m, 'micro', ...summary.microF1[m]]]);
    const csv = csvTable(['method', 'average', ...ks.map((k) => `f1_k${k}`)], csvRows, { precision: 6 });
    const svg = lineChartSvg({
      title: `${summary.model}: token F1 against ERASER's human rationales (${summary.n} ${summary.split} reviews)`,
      xLabel: 'k (words kept)',
      yLabel: 'token F1, instance macro',
      x: ks,
      series: methods.map((m) => ({ name: m, y: summary.macroF1[m] })),
    });
    return [{ file: 'rationales.md', text: md }, { file: 'rationales.csv', text: csv }, { file: 'rationales.svg', text: svg }];
  },
};
