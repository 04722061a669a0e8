// A fake evaluation kind for the tests of the shared evaluation machinery (run folders,
// resume, shards, merge) without a model: arithmetic on made-up items.
import { markdownTable, csvTable } from '../../eval/report-table.js';
import { lineChartSvg } from '../../eval/report-svg.js';

// A kind doing arithmetic only: floating-point sums depend on the order of the records,
// which is what the byte-identity checks (shards merged = one run) would catch.
export const fakeKind = {
  name: 'fake',
  itemKey: (item) => item.name,
  summarize(records, settings, keys) {
    const mean = records.reduce((s, r) => s + r.score, 0) / records.length;
    const curve = settings.fractions.map((f) => records.reduce((s, r) => s + Math.sin(r.score * f), 0) / records.length);
    return { n: records.length, mean, curve, first: keys[0], hits: records.filter((r) => r.hit).length };
  },
  async reports(summary, settings) {
    const rows = settings.fractions.map((f, i) => [f, summary.curve[i]]);
    return [
      { file: 'fake.md', text: `${markdownTable(['fraction', 'mean sin'], rows, { precision: 4 })}\n` },
      { file: 'fake.csv', text: csvTable(['fraction', 'mean sin'], rows, { precision: 6 }) },
      { file: 'fake.svg', text: lineChartSvg({ title: 'fake', xLabel: 'f', yLabel: 'y', x: settings.fractions, series: [{ name: 'sin', y: summary.curve }] }) },
    ];
  },
};
export const fakeItems = Array.from({ length: 23 }, (_, i) => ({ name: `img_${String(i).padStart(3, '0')}.png`, value: i }));
export const fakeSettings = { fractions: [0.1, 0.3, 0.7], model: 'fake-sha' };
export const processFake = async (item) => ({ score: (item.value * 0.37) % 1.3, hit: item.value % 3 === 0 });
