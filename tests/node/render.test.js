// The last stage drawn once: core.renderHeat (src/render/heat_image.h) is what the page's
// heat image, the browser render() and Node's render() all draw; Node's render() over a
// photo is cut by the threshold where the heat image is transparent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCore } from '../../runtime/core.js';
import { render } from '../../runtime/node/index.js';

const core = await loadCore();
// A 14 x 14 map with a bright corner and signed values, as relevance maps are.
const map = { shape: [14, 14], data: Float32Array.from({ length: 196 }, (_, i) => Math.sin(i * 0.37) + (i % 14 < 4 && i < 56 ? 3 : 0)) };

// The stages one by one, as web/lib/render.js drew before renderHeat.
function staged(scale, threshold) {
  const map01 = core.upsample(core.scaled(map, scale), 14, 14, 224, 224);
  const rgba = core.colorize(map01, 224, 224, core.colormapFor(scale, 'jet'));
  if (threshold !== 'none') {
    const mask = core.threshold(map01, 224, 224, threshold);
    for (let i = 0; i < mask.length; i++) if (!(mask[i] > 0)) rgba[i * 4 + 3] = 0;
  }
  return rgba;
}

test('renderHeat: scale, smooth 224, threshold and colour in one call, as the stages gave', () => {
  for (const scale of ['positive', 'signed']) {
    for (const threshold of ['none', 'mean', 'otsu']) {
      const heat = core.renderHeat(map.data, 14, 14, { scale, threshold, colormap: 'jet', sampling: 'bilinear' });
      assert.equal(heat.width, 224);
      assert.equal(heat.height, 224);
      assert.deepEqual(heat.data, staged(scale, threshold), `${scale} ${threshold}`);
    }
  }
  const grid = core.renderHeat(map.data, 14, 14, { sampling: 'patch_grid' });
  assert.equal(grid.width, 14, 'a patch grid keeps the map size (the canvas scales its blocks)');
  assert.throws(() => core.renderHeat(map.data, 14, 14, { sampling: 'nearest' }), /map sampling/);
  assert.throws(() => core.renderHeat(map.data, 14, 14, { threshold: 'median' }), /threshold/);
});

test('render() without a photo: the heat image at the longest side `size`, in the map proportions', async () => {
  const square = await render(map);
  assert.equal(square.width, 224, 'default size: the model input');
  assert.deepEqual(square.data, staged('positive', 'none'));
  const wide = await render({ shape: [2, 4], data: Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]) }, { size: 100, display: 'grid' });
  assert.deepEqual([wide.width, wide.height], [100, 50]);
  await assert.rejects(render(map, { size: 0 }), /size must be an integer 1\.\.16384/);
});

test('render() over a photo: the threshold leaves the photo where the heat image is transparent', async () => {
  const photo = { rgba: new Uint8Array(224 * 224 * 4).fill(90), width: 224, height: 224 };
  const heat = core.renderHeat(map.data, 14, 14, { threshold: 'mean' });
  const cut = await render(map, { photo, threshold: 'mean', opacity: 1 });
  const whole = await render(map, { photo, opacity: 1 });
  let removed = 0;
  for (let i = 0; i < 224 * 224; i++) {
    const untouched = cut.data[i * 4] === 90 && cut.data[i * 4 + 1] === 90 && cut.data[i * 4 + 2] === 90;
    assert.equal(untouched, heat.data[i * 4 + 3] === 0, `pixel ${i}`);
    if (!untouched) assert.equal(cut.data[i * 4], whole.data[i * 4], `pixel ${i} kept is drawn as without threshold`);
    removed += untouched;
  }
  assert.ok(removed > 0 && removed < 224 * 224, `the mean threshold removed ${removed} pixels`);
});
