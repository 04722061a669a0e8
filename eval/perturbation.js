// @ts-check
// The perturbation evaluation as an evaluation kind (eval/node/run.js): what a
// finished photo's record holds (perturbation-protocol.js), and how records become the
// summary — accuracy against the label at every k, and its AUC per method, order
// (pos/neg) and explained class (predicted/target) — and the report files.
import { loadEvalCore } from '../runtime/core-eval.js';
import { FRACTIONS, VARIANTS, curveKey } from './perturbation-protocol.js';
import { markdownTable, csvTable, skippedLines } from './report-table.js';
import { lineChartSvg } from './report-svg.js';

let corePromise;
const sharedCore = () => (corePromise ??= loadEvalCore());

const ORDER_NAMES = { pos: 'most relevant removed first (lower is better)', neg: 'least relevant removed first (higher is better)' };

export const kind = {
  name: 'perturbation',

  itemKey: (item) => item.name,

  // Accuracy at k = 0 (unperturbed) and at every fraction, averaged over the photos in key
  // order (so the sums, and the file, do not depend on how the run was split).
  async summarize(records, settings) {
    const core = await sharedCore();
    const fractions = [0, ...(settings.fractions ?? FRACTIONS)];
    const n = records.length;
    const correct = records.reduce((sum, r) => sum + r.correct, 0);
    const top1 = n ? correct / n : 0;
    const curves = {};
    const auc = {};
    for (const method of settings.methods) {
      for (const order of ['pos', 'neg']) {
        for (const variant of VARIANTS) {
          const key = curveKey(method, order, variant);
          const hits = new Array(fractions.length - 1).fill(0);
          for (const r of records) {
            const bits = r.curves[key];
            for (let f = 0; f < hits.length; f++) hits[f] += bits.charCodeAt(f) === 49 ? 1 : 0;
          }
          curves[key] = [top1, ...hits.map((h) => (n ? h / n : 0))];
          auc[key] = n ? core.perturbationAuc(fractions, curves[key]) : 0;
        }
      }
    }
    return { n, top1, fractions, methods: settings.methods, model: settings.model, startLayer: settings.startLayer, auc, curves };
  },

  reports(summary) {
    const columns = ['pos/predicted', 'neg/predicted', 'pos/target', 'neg/target'];
    const aucRows = summary.methods.map((m) => [m, ...columns.map((c) => summary.auc[`${m}/${c}`])]);
    const md = [
      `# Perturbation AUC: ${summary.model}, ${summary.n} photos, top-1 ${(summary.top1 * 100).toFixed(2)} %`,
      '',
      'Accuracy against the label while pixels are removed in the order of each method\'s map',
      '(k = 0…90 %, AUC = area × 100). pos: most relevant first, lower is better; neg: least',
      'relevant first, higher is better. predicted / target: the map of the predicted / labelled class.',
      `Rollouts start at block ${summary.startLayer}.`,
      '',
      ...skippedLines(summary, 'photo'),
      markdownTable(['method', ...columns.map((c) => `AUC ${c}`)], aucRows, { precision: 2 }),
      '',
    ].join('\n');
    const percent = summary.fractions.map((f) => Math.round(f * 100));
    const csvRows = [];
    for (const m of summary.methods) {
      for (const c of columns) {
        const [order, variant] = c.split('/');
        const key = `${m}/${c}`;
        csvRows.push([m, order, variant, summary.auc[key], ...summary.curves[key]]);
      }
    }
    const csv = csvTable(['method', 'order', 'class', 'auc', ...percent.map((p) => `acc_${p}`)], csvRows, { precision: 6 });
    const charts = ['pos', 'neg'].map((order) => ({
      file: `perturbation-${order}.svg`,
      text: lineChartSvg({
        title: `${summary.model}, predicted class: ${ORDER_NAMES[order]}`,
        xLabel: 'pixels removed (%)',
        yLabel: 'top-1 accuracy (%)',
        x: percent,
        series: summary.methods.map((m) => ({ name: m, y: summary.curves[`${m}/${order}/predicted`].map((a) => a * 100) })),
      }),
    }));
    return [{ file: 'perturbation.md', text: md }, { file: 'perturbation.csv', text: csv }, ...charts];
  },
};
