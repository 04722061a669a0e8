#!/usr/bin/env node
// `node bench/display-coverage.js [--photos N]`: how much of the model's crop the default
// display colours for each signed method (docs/display-scale.md), on N ImageNet photos
// that no test uses (every 25th of VITREL_SHARED_DIR/imagenet/samples, from the 13th).
// Per method and photo, on the heat image the page draws (the core's renderHeat, signed),
// the figures of display-measure.js. The same for the display before it (v / max|v|, unsmoothed), for comparison. Prints a
// Markdown table of the means and the lowest photo's visible share.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadExplainer, render } from '../runtime/node/index.js';
import { loadCore } from '../runtime/core.js';
import { projectPaths } from '../scripts/paths.js';
import { measure } from './display-measure.js';

const METHODS = ['attnlrp', 'cp_lrp', 'lrp_full'];

const { values } = parseArgs({ options: { photos: { type: 'string', default: '20' } } });
const { shared, models } = projectPaths();
const samples = path.join(shared, 'imagenet', 'samples');
const photos = readdirSync(samples).sort().filter((_, i) => i % 25 === 12).slice(0, Number(values.photos));

// The display before: v / (2 max|v|) + 0.5 on rdbu, every pixel on its own.
function peakDisplay(core, raw) {
  const peak = raw.reduce((m, v) => Math.max(m, Math.abs(v)), 0) || 1;
  return core.colorize(Float32Array.from(raw, (v) => v / (2 * peak) + 0.5), 'rdbu');
}

const core = await loadCore();
const explainer = await loadExplainer({ model: models });
const patch = explainer.metadata.architecture.patch_size;
const rows = { now: {}, before: {} };
for (const file of photos) {
  const result = await explainer.explain(readFileSync(path.join(samples, file)), { methods: METHODS });
  for (const m of METHODS) {
    const map = result.targets[0].maps[m];
    const heat = await render(map, { scale: 'signed', size: Math.max(...map.shape) });
    (rows.now[m] ??= []).push(measure(heat.data, map.data, map.shape, patch));
    (rows.before[m] ??= []).push(measure(peakDisplay(core, map.data), map.data, map.shape, patch));
  }
}
await explainer.close();

const pct = (v) => `${(100 * v).toFixed(1)} %`;
const mean = (list, i) => list.reduce((s, r) => s + r[i], 0) / list.length;
console.log(`${photos.length} photos, DeiT-tiny, each photo's predicted class\n`);
console.log('| method | display | visible (mean) | visible (lowest photo) | \\|R\\| shown | top patch red |');
console.log('|---|---|---|---|---|---|');
for (const m of METHODS) {
  for (const [name, list] of [['before (÷ max\\|R\\|)', rows.before[m]], ['now (default)', rows.now[m]]]) {
    console.log(`| ${m} | ${name} | ${pct(mean(list, 0))} | ${pct(Math.min(...list.map((r) => r[0])))} | ${pct(mean(list, 1))} | ${pct(mean(list, 2))} |`);
  }
}
