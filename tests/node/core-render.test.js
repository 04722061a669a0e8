// runtime/core.js rendering and preprocessing wrappers over src/render and src/preprocess,
// through the WebAssembly build: argument passing, result layout, and error propagation.
// (The C++ tests check the numerics in depth; these check the bindings carry them.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadCore } from '../../runtime/core.js';
import { parseNpy } from '../../runtime/npy.js';
import { golden, shared } from './maps-support.js';

const core = await loadCore();
const ramp = Float32Array.from([0, 1, 2, 3]); // 2x2

test('id lists', () => {
  assert.deepEqual([...core.colormapIds], ['jet', 'viridis', 'inferno', 'turbo', 'gray', 'rdbu']);
  assert.deepEqual([...core.mapScaleIds], ['positive', 'signed']);
  assert.deepEqual([...core.thresholdIds], ['none', 'mean', 'otsu']);
  assert.deepEqual([...core.blendModeIds], ['alpha', 'notebook']);
  assert.deepEqual([...core.mapSamplingIds], ['bilinear', 'patch_grid']);
  assert.deepEqual([...core.cropModeIds], ['center', 'none']);
});

test('normalize: min-max to [0,1], a constant map gives zeros', () => {
  assert.deepEqual(Array.from(core.normalize(ramp, 2, 2)), [0, 1 / 3, 2 / 3, 1].map(Math.fround));
  assert.deepEqual(Array.from(core.normalize({ data: ramp, shape: [2, 2] })), Array.from(core.normalize(ramp)));
  assert.deepEqual(Array.from(core.normalize(new Float32Array(5).fill(7))), [0, 0, 0, 0, 0]);
});

test('scales: signed puts 0 in the middle and draws with rdbu; summary; contrast; errors', () => {
  const signed = Float32Array.from([-2, 0, 1, 4]);
  assert.deepEqual(Array.from(core.scaled(signed, 'signed')), [0.25, 0.5, 0.625, 1]);
  assert.deepEqual(Array.from(core.scaled(signed, 'positive')), Array.from(core.normalize(signed)));
  assert.equal(core.colormapFor('signed', 'jet'), 'rdbu');
  assert.equal(core.colormapFor('positive', 'viridis'), 'viridis');
  assert.deepEqual(core.summarize({ data: signed, shape: [2, 2] }, 'signed'),
    { min: -2, max: 4, negativeShare: 0.25, low: -4, high: 4, clippedShare: 0, smoothed: false });
  // A pixel map (its shape says so) is smoothed before its scale: a checkerboard of ±1,
  // 0.5 higher in one corner, becomes that corner in red and white elsewhere; as a bare row
  // every pixel keeps its own colour.
  const checker = Float32Array.from({ length: 112 * 112 }, (_, i) => {
    const [y, x] = [Math.floor(i / 112), i % 112];
    return ((x + y) % 2 ? 1 : -1) + (x < 32 && y < 32 ? 0.5 : 0);
  });
  const smoothed = core.scaled({ data: checker, shape: [112, 112] }, 'signed');
  assert.ok(smoothed[12 * 112 + 12] > 0.9 && Math.abs(smoothed[90 * 112 + 90] - 0.5) < 0.02);
  assert.deepEqual(Array.from(core.scaled(checker, 'signed').subarray(0, 2)), [Math.fround(1 / 3), 1]); // -0.5, 1.5
  assert.equal(core.summarize({ data: checker, shape: [112, 112] }, 'signed').smoothed, true);
  assert.throws(() => core.scaled(signed, 'abs'), { name: 'InputError', message: 'scale: unknown id "abs" (valid: positive, signed)' });
  const a = { shape: [1, 3], data: Float32Array.from([2, 1, 0]) };
  const b = { shape: [1, 3], data: Float32Array.from([0, -10, 5]) };
  const { correlation, ...ab } = core.contrast('lrp_full', a, b);
  assert.deepEqual(ab, { shape: [1, 3], data: Float32Array.from([1, 1.5, -0.5]) });
  // Pearson r by hand: deviations (1, 0, -1) and (5, -25, 20)/3 → -5 / sqrt(2 · 1050/9)
  assert.ok(Math.abs(correlation - -5 / Math.sqrt(2 * 1050 / 9)) < 1e-12, `r = ${correlation}`);
  assert.equal(core.contrast('lrp_full', a, { shape: [1, 3], data: new Float32Array(3) }).correlation, null, 'a constant map has none');
  assert.equal(core.method('raw_attention').contrast, false);
  assert.equal(core.method('transformer_attribution').contrast, true);
  assert.throws(() => core.contrast('raw_attention', a, a), { name: 'InputError', message: /raw_attention reads only the attention/ });
  assert.throws(() => core.contrast('gradcam', a, { shape: [3, 1], data: a.data }), /differ in shape \(1x3 and 3x1\)/);
  assert.throws(() => core.contrast('gradcam', a, { data: a.data }), /map B must be \{ shape: \[rows, cols\] or a text's \[S\], data \}/);
});

test('upsample: bilinear with align_corners=False', () => {
  const out = core.upsample(ramp, 2, 2, 4, 4);
  assert.ok(out instanceof Float32Array);
  assert.equal(out.length, 16);
  // Reference: source coordinate max(0, (o + 0.5) * in/out - 0.5), clamped at the far edge.
  const src = (o) => Math.max(0, (o + 0.5) * 0.5 - 0.5);
  const at = (y, x) => {
    const y0 = Math.floor(src(y)); const x0 = Math.floor(src(x));
    const y1 = Math.min(y0 + 1, 1); const x1 = Math.min(x0 + 1, 1);
    const wy = src(y) - y0; const wx = src(x) - x0;
    const v = (r, c) => ramp[r * 2 + c];
    return (1 - wy) * ((1 - wx) * v(y0, x0) + wx * v(y0, x1)) + wy * ((1 - wx) * v(y1, x0) + wx * v(y1, x1));
  };
  for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) assert.ok(Math.abs(out[y * 4 + x] - at(y, x)) < 1e-6);
});

test('colorize: RGBA per value, gray is floor(v * 255)', () => {
  const map01 = Float32Array.from([0, 0.5, 1, 0.25]);
  const rgba = core.colorize(map01, 2, 2, 'gray');
  assert.ok(rgba instanceof Uint8ClampedArray);
  assert.equal(rgba.length, 16);
  for (let i = 0; i < 4; i++) {
    const g = Math.floor(Math.fround(map01[i] * 255));
    assert.deepEqual(Array.from(rgba.slice(i * 4, i * 4 + 4)), [g, g, g, 255]);
  }
  assert.deepEqual(core.colorize(map01, 'jet'), core.colorize(map01, 2, 2, 'jet'));
  // OpenCV JET: 0 is dark blue, 1 is dark red.
  const jet = core.colorize(Float32Array.from([0, 1]), 'jet');
  assert.ok(jet[2] > 100 && jet[0] === 0 && jet[4] > 100 && jet[6] === 0);
});

test('legend: 256 x 1 RGBA, low values on the left', () => {
  const legend = core.legend('gray');
  assert.equal(legend.length, 256 * 4);
  for (const i of [0, 17, 128, 255]) assert.deepEqual(Array.from(legend.slice(i * 4, i * 4 + 4)), [i, i, i, 255]);
  for (const id of core.colormapIds) assert.equal(core.legend(id).length, 1024);
});

test('threshold: mean, otsu and none', () => {
  const map01 = Float32Array.from([0, 1 / 3, 2 / 3, 1]);
  assert.deepEqual(Array.from(core.threshold(map01, 2, 2, 'mean')), [0, 0, 1, 1]);
  assert.deepEqual(Array.from(core.threshold(map01, 'otsu')), [0, 0, 1, 1]);
  assert.deepEqual(Array.from(core.threshold(map01, 'none')), [1, 1, 1, 1]);
  assert.equal(typeof core.otsuLevel(map01), 'number');
});

test('composite: opacity 0 is the photo, opacity 1 the colour; alpha kept', () => {
  const photo = new Uint8ClampedArray([10, 20, 30, 200, 40, 50, 60, 100]);
  const map01 = Float32Array.from([0, 1]);
  assert.deepEqual(core.composite(photo, 2, 1, map01, { colormap: 'gray', opacity: 0 }), photo);
  assert.deepEqual(Array.from(core.composite(photo, 2, 1, map01, { colormap: 'gray', opacity: 1 })),
    [0, 0, 0, 200, 255, 255, 255, 100]);
  assert.equal(core.composite(photo, 2, 1, map01, { mode: 'notebook' }).length, 8);
});

const catdogPng = path.join(shared, 'images', 'catdog.png');
let decodeImage = null;
try {
  ({ decodeImage } = await import('../../runtime/node/image.js'));
} catch { /* sharp not installed: the photo test is skipped */ }

test('preprocess: catdog.png (already 224x224) gives the golden input tensor',
  { skip: decodeImage && existsSync(catdogPng) && existsSync(golden('catdog-input.npy')) ? false : 'needs sharp and the shared data' }, async () => {
    const photo = await decodeImage(catdogPng);
    const metadataPreprocess = {
      resize: { mode: 'short_side', size: 256 }, crop: { mode: 'center', size: [224, 224] },
      interpolation: 'bicubic', mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], exact_size_passthrough: true,
    };
    const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadataPreprocess);
    assert.deepEqual(pre.shape, [1, 3, 224, 224]);
    assert.equal(pre.passthrough, true);
    assert.deepEqual(pre.region, { x: 0, y: 0, width: 224, height: 224 });
    assert.equal(pre.pixels.data, pre.data);
    const expected = parseNpy(readFileSync(golden('catdog-input.npy')), 'catdog-input.npy');
    let worst = 0;
    for (let i = 0; i < expected.data.length; i++) worst = Math.max(worst, Math.abs(pre.data[i] - expected.data[i]));
    assert.ok(worst < 1e-5, `max difference ${worst}`);
    // The whole metadata object works too and checks the model's input size.
    const metadata = { preprocess: metadataPreprocess, architecture: { image_size: [224, 224] } };
    assert.deepEqual(core.preprocess(photo.rgba, photo.width, photo.height, metadata).data, pre.data);
    assert.throws(() => core.preprocess(photo.rgba, photo.width, photo.height,
      { ...metadata, architecture: { image_size: [384, 384] } }), /model takes 384x384/);
  });

test('preprocess: resize + centre crop, and the region of the photo the model saw', () => {
  const [W, H] = [300, 200];
  const rgba = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([(i % W) % 256, 100, 200, 255], i * 4);
  const spec = { resize: { mode: 'short_side', size: 256 }, crop: { mode: 'center', size: [224, 224] },
    interpolation: 'bicubic', mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], exact_size_passthrough: true };
  const pre = core.preprocess(rgba, W, H, spec);
  assert.deepEqual(pre.shape, [1, 3, 224, 224]);
  assert.equal(pre.passthrough, false);
  // Short side 200 → 256 (scale 1.28): 384x256, crop at (80, 16) → photo (62.5, 12.5), 175 wide.
  assert.deepEqual(pre.region, { x: 62.5, y: 12.5, width: 175, height: 175 });
  assert.deepEqual(core.inputRegion(W, H, spec), pre.region);
  assert.equal(pre.rgba.length, 224 * 224 * 4);
  // Constant green channel 100 → (100/255 - 0.5) / 0.5 everywhere in plane 1.
  const g = (100 / 255 - 0.5) / 0.5;
  assert.ok(Math.abs(pre.data[224 * 224 + 5000] - g) < 1e-6);
});

test('preprocess with crop "none": the whole photo resized to the input size, its own exact resize', () => {
  const [W, H] = [300, 200];
  const rgba = new Uint8ClampedArray(W * H * 4);
  for (let i = 0; i < W * H; i++) rgba.set([(i % W) % 256, (i * 7) % 256, 200, 255], i * 4);
  const deit = { resize: { mode: 'short_side', size: 256 }, crop: { mode: 'center', size: [224, 224] },
    interpolation: 'bicubic', mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], exact_size_passthrough: true };
  const whole = core.preprocess(rgba, W, H, deit, { crop: 'none' });
  assert.deepEqual(whole.region, { x: 0, y: 0, width: W, height: H });
  assert.deepEqual(core.inputRegion(W, H, deit, { crop: 'none' }), whole.region);
  const exact = core.preprocess(rgba, W, H, { ...deit, resize: { mode: 'exact', size: [224, 224] }, crop: null });
  assert.deepEqual(whole.data, exact.data, 'the same as an exact 224x224 resize');
  assert.deepEqual(core.preprocess(rgba, W, H, deit, { crop: 'center' }).data, core.preprocess(rgba, W, H, deit).data);
  assert.throws(() => core.preprocess(rgba, W, H, deit, { crop: 'middle' }), /crop mode: unknown id "middle" \(valid: center, none\)/);
  assert.throws(() => core.preprocess(rgba, W, H, { ...deit, crop: null }, { crop: 'none' }), /crop mode "none" needs a fixed model input size/);
});

test('overlayOnPhoto: draws inside the region only, returns a copy', () => {
  const [W, H] = [40, 20];
  const photo = new Uint8ClampedArray(W * H * 4).fill(128);
  const before = photo.slice();
  const region = { x: 10, y: 0, width: 20, height: 20 };
  const out = core.overlayOnPhoto(photo, W, H, Float32Array.from([1, 1, 1, 1]), 2, 2, region,
    { colormap: 'gray', opacity: 1 });
  assert.deepEqual(photo, before, 'input untouched');
  assert.equal(out.length, W * H * 4);
  const px = (x, y) => Array.from(out.slice((y * W + x) * 4, (y * W + x) * 4 + 4));
  assert.deepEqual(px(2, 5), [128, 128, 128, 128], 'outside the region');
  assert.deepEqual(px(20, 5), [255, 255, 255, 128], 'inside: the colour of 1.0, photo alpha kept');
  const dimmed = core.overlayOnPhoto(photo, W, H, Float32Array.from([1, 1, 1, 1]), 2, 2, region, { outsideDim: 1 });
  assert.deepEqual(Array.from(dimmed.slice(0, 3)), [0, 0, 0]);
});

test('a big photo goes through the heap (memory growth)', () => {
  const [W, H] = [3000, 2000];
  const photo = new Uint8ClampedArray(W * H * 4).fill(90);
  const out = core.overlayOnPhoto(photo, W, H, new Float32Array(196).fill(0.5), 14, 14,
    { x: 500, y: 0, width: 2000, height: 2000 }, { opacity: 0.5 });
  assert.equal(out.length, W * H * 4);
});

test('C++ InputErrors arrive with their messages', () => {
  const isInput = (re) => (err) => err instanceof Error && err.name === 'InputError' && re.test(err.message);
  assert.throws(() => core.colorize(ramp, 'sepia'), isInput(/unknown id "sepia".*jet, viridis/));
  assert.throws(() => core.threshold(ramp, 'median'), isInput(/median/));
  assert.throws(() => core.upsample(ramp, 3, 3, 4, 4), isInput(/4 values, expected rows\*cols = 9/));
  assert.throws(() => core.normalize(Float32Array.from([1, NaN])), isInput(/non-finite/));
  assert.throws(() => core.preprocess(new Uint8ClampedArray(40), 3, 3, {}), isInput(/expected 36/));
  assert.throws(() => core.composite(new Uint8ClampedArray(16), 2, 2, ramp, { opacity: 1.5 }), isInput(/opacity/));
  assert.throws(() => core.preprocess(new Uint8ClampedArray(36), 3, 3, { resize: { mode: 'sideways' } }), isInput(/sideways/));
  assert.throws(() => core.colorize('not a map', 'jet'), TypeError);
});
