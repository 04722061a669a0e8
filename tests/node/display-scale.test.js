// The display of the signed pixel maps (src/render/map_scale.h, docs/display-scale.md) on
// a real photo: every signed method colours at least 10 % of the crop and keeps its most
// positive patch red, where dividing by max|R| coloured about 1 %; the raw values are
// untouched; the caption says where full colour is and how much lies beyond.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { deitModel, images, skipDeit } from './explain-support.js';
import { loadExplainer, render } from '../../runtime/node/index.js';
import { loadCore } from '../../runtime/core.js';
import { scaleCaption } from '../../runtime/map-scale.js';
import { measure } from '../../bench/display-measure.js';

const METHODS = ['attnlrp', 'cp_lrp', 'lrp_full'];

test('signed pixel maps are drawn visibly, their evidence in sight, raw values kept', { skip: skipDeit }, async () => {
  const core = await loadCore();
  const explainer = await loadExplainer({ model: path.dirname(deitModel), threads: 1 });
  try {
    const result = await explainer.explain(readFileSync(path.join(images, 'dogbird.png')), { methods: METHODS });
    const patch = explainer.metadata.architecture.patch_size;
    for (const m of METHODS) {
      const map = result.targets[0].maps[m];
      const raw = Float32Array.from(map.data);
      const heat = await render(map, { scale: 'signed', size: Math.max(...map.shape) });
      const [visible, , topRed] = measure(heat.data, map.data, map.shape, patch);
      assert.ok(visible >= 0.1, `${m}: ${(visible * 100).toFixed(1)} % of the crop coloured`);
      assert.ok(topRed >= 0.5, `${m}: ${(topRed * 100).toFixed(0)} % of the top patch red`);
      assert.deepEqual(map.data, raw, `${m}: drawing left the raw map as it was`);
      const s = core.summarize(map, 'signed');
      assert.ok(s.smoothed && s.high > 0 && s.high < Math.max(-s.min, s.max), `${m}: full colour below the extreme`);
      assert.ok(Math.abs(s.clippedShare - 0.03) < 0.005, `${m}: ${s.clippedShare} beyond full colour`);
      assert.match(scaleCaption(core, map, 'signed'),
        /^signed scale \(blue < 0 < red\), smoothed · full colour at ±[\d.e+-]+, 3% of the map beyond · min -[\d.e+-]+ · max [\d.e+-]+ · \d+% negative$/);
    }
  } finally {
    await explainer.close();
  }
});
