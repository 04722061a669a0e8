// @ts-check
// The grid pointing game as an evaluation kind (eval/node/run.js). An item is a
// mosaic (./mosaic.js); its record (./pointing-game-protocol.js plus the CLI) is
//   { photos: [4 names], classes: [4 ids], predicted, shares: { method: [4] }, hits: { method: [4] } }
// and the summary averages over every tile of every mosaic:
//   score[method]   mean share of positive relevance inside the correct tile (Böhle et al.)
//   hitRate[method] share of tiles whose hottest pixel lies in the correct tile
// Sums run in key order, so a merge of shards writes the same bytes. Environment-neutral.
import { markdownTable, csvTable, skippedLines } from './report-table.js';

const percent = (v) => v * 100;

export const kind = {
  name: 'pointing-game',

  itemUnit: () => 'mosaic',

  itemKey: (mosaic) => mosaic.key,

  summarize(records, settings) {
    const n = records.length;
    const tiles = records.reduce((sum, r) => sum + r.classes.length, 0);
    const mean = (field, method) => {
      let sum = 0;
      for (const r of records) for (const v of r[field][method]) sum += v;
      return tiles ? sum / tiles : 0;
    };
    const score = {};
    const hitRate = {};
    for (const method of settings.methods) {
      score[method] = mean('shares', method);
      hitRate[method] = mean('hits', method);
    }
    const predictedAmongTiles = n ? records.filter((r) => r.classes.includes(r.predicted)).length / n : 0;
    return {
      n, tiles, seed: settings.seed, grid: settings.grid, model: settings.model, methods: settings.methods,
      startLayer: settings.startLayer, score, hitRate, predictedAmongTiles,
    };
  },

  reports(summary) {
    const { grid } = summary;
    const rows = summary.methods.map((m) => [m, percent(summary.score[m]), percent(summary.hitRate[m])]);
    const md = [
      `# Grid pointing game: ${summary.model}, ${summary.n} mosaics (${summary.tiles} tiles), seed ${summary.seed}`,
      '',
      `Each mosaic tiles ${grid * grid} photos of different classes (${grid}×${grid}, each preprocessed at 1/${grid} of the`,
      'input size); each tile\'s class is explained in one run. Score: the share of the map\'s positive',
      'relevance that falls inside the correct tile, averaged over the tiles (higher is more',
      'class-specific). Hit rate: the share of tiles whose hottest pixel lies in the correct tile.',
      `Rollouts start at block ${summary.startLayer}. The model's top-1 class is one of the tiles' classes`,
      `for ${(summary.predictedAmongTiles * 100).toFixed(1)} % of the mosaics.`,
      '',
      ...skippedLines(summary, 'mosaic'),
      markdownTable(['method', 'score (%)', 'hit rate (%)'], rows, { precision: 2 }),
      '',
    ].join('\n');
    const csv = csvTable(['method', 'score', 'hit_rate'],
      summary.methods.map((m) => [m, summary.score[m], summary.hitRate[m]]), { precision: 6 });
    return [{ file: 'pointing-game.md', text: md }, { file: 'pointing-game.csv', text: csv }];
  },
};
