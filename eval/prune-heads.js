// @ts-check
// The head-pruning evaluation as an evaluation kind (eval/node/run.js). Two kinds
// of records share the folder: a ranking photo's { label, predicted, importance } and a
// held-out photo's { label, correct: { measure: "1101…" }, perBlock, perBlockGlobal }
// (prune-heads-protocol.js). The summary: the head order of every measure (from the
// ranking records, in key order, as the run computed it), the top-1 accuracy of the masked
// model at every rate and, per kept count, with the top heads of every block kept against
// the global order at the same count (no perBlock for folders from before it, whose
// settings lack perBlockKept: their summary stays what it was).
import { RATES, headOrders, importanceSums, maskedCount } from './prune-heads-protocol.js';
import { markdownTable, csvTable, skippedLines } from './report-table.js';
import { lineChartSvg } from './report-svg.js';

export const isRankRecord = (record) => 'importance' in record;

// The per-block table's columns: per measure, the top heads of every block kept, then the
// global order masking as many heads.
const perBlockColumns = (by) => by.flatMap((m) => [
  { m, field: 'accuracy', name: 'per block', csv: 'per_block' },
  { m, field: 'global', name: 'global', csv: 'global' },
]);

function perBlockLines(summary) {
  const p = summary.perBlock;
  if (!p) return [];
  const columns = perBlockColumns(summary.by);
  const rows = p.kept.map((kept, k) => [String(kept), String(p.masked[k]), ...columns.map((c) => p[c.field][c.m][k] * 100)]);
  return [
    '## The top heads of every block (this project\'s protocol; the paper\'s code has none)',
    '',
    `In every block only the k heads each measure ranks highest are kept (${summary.blocks}·(${summary.heads} − k) heads masked);`,
    'global masks as many heads, the least important overall, as in the table above. Top-1 (%):',
    '',
    markdownTable(['kept per block', 'heads masked', ...columns.map((c) => `${c.m} ${c.name}`)], rows, { precision: 2 }),
    '',
  ];
}

function perBlockCsv(summary) {
  const p = summary.perBlock;
  const columns = perBlockColumns(summary.by);
  return csvTable(['kept', 'masked', ...columns.map((c) => `acc_${c.m}_${c.csv}`)],
    p.kept.map((kept, k) => [String(kept), String(p.masked[k]), ...columns.map((c) => p[c.field][c.m][k])]), { precision: 6 });
}

export const kind = {
  name: 'prune-heads',

  itemUnit: (settings) => settings.unit ?? 'img',

  itemKey: (item) => item.name,

  summarize(records, settings) {
    const { by, blocks, heads, seed } = settings;
    const ranking = records.filter(isRankRecord);
    const held = records.filter((r) => !isRankRecord(r));
    const total = blocks * heads;
    const orders = headOrders(ranking, settings);
    const sums = importanceSums(ranking, by, settings);
    // Share of held-out photos still right under each mask of a record field.
    const accuracyOf = (field, count) => Object.fromEntries(by.map((m) => [m, Array.from({ length: count }, (_, k) => {
      const hits = held.reduce((n, r) => n + (r[field][m].charCodeAt(k) === 49 ? 1 : 0), 0);
      return held.length ? hits / held.length : 0;
    })]));
    const kept = settings.perBlockKept;
    return {
      n: records.length,
      model: settings.model,
      ...(settings.unit && { unit: settings.unit }), // 'sentence' for texts; photos have none
      rankImages: ranking.length,
      evalImages: held.length,
      by,
      seed,
      steps: settings.steps,
      blocks,
      heads,
      rates: RATES,
      masked: RATES.map((_, k) => maskedCount(k, total)),
      accuracy: accuracyOf('correct', RATES.length),
      ...(kept && {
        perBlock: {
          kept,
          masked: kept.map((k) => blocks * (heads - k)),
          accuracy: accuracyOf('perBlock', kept.length),
          global: accuracyOf('perBlockGlobal', kept.length),
        },
      }),
      order: orders,
      importance: Object.fromEntries(Object.entries(sums).map(([m, s]) => [m, Array.from(s)])),
    };
  },

  reports(summary) {
    const unit = summary.unit ?? 'photo';
    const percent = summary.rates.map((r) => Math.round(r * 100));
    const rows = summary.rates.map((_, k) => [`${percent[k]} %`, String(summary.masked[k]), ...summary.by.map((m) => summary.accuracy[m][k] * 100)]);
    const md = [
      `# Head pruning: ${summary.model}, ranked on ${summary.rankImages} ${unit}s, top-1 on ${summary.evalImages}`,
      '',
      `Heads (${summary.blocks} blocks × ${summary.heads}) sorted by each importance measure, summed over the ranking`,
      `${unit}s (attribution: max of Attr for the labelled class, m = `
        + `${summary.steps}; attention: max of A; taylor: |Σ A ⊙ ∂L/∂A|, blocks L2-normalised; random: seed ${summary.seed}).`,
      `At each rate the least important heads are masked and top-1 (%) is measured on the held-out ${unit}s.`,
      '',
      ...skippedLines(summary, unit),
      markdownTable(['rate', 'heads masked', ...summary.by.map((m) => `top-1 ${m} (%)`)], rows, { precision: 2 }),
      '',
      ...perBlockLines(summary),
    ].join('\n');
    const csv = csvTable(['rate', 'masked', ...summary.by.map((m) => `acc_${m}`)],
      summary.rates.map((r, k) => [r, summary.masked[k], ...summary.by.map((m) => summary.accuracy[m][k])]), { precision: 6 });
    const svg = lineChartSvg({
      title: `${summary.model}: top-1 while the least important heads are masked`,
      xLabel: 'heads masked (%)',
      yLabel: 'top-1 accuracy (%)',
      x: percent,
      series: summary.by.map((m) => ({ name: m, y: summary.accuracy[m].map((a) => a * 100) })),
    });
    const files = [{ file: 'prune-heads.md', text: md }, { file: 'prune-heads.csv', text: csv }, { file: 'prune-heads.svg', text: svg }];
    if (summary.perBlock) files.push({ file: 'prune-heads-per-block.csv', text: perBlockCsv(summary) });
    return files;
  },
};
