// The grid pointing game and the segmentation evaluation: the seeded mosaic builder, the
// tile placement, the mask brought into the model's frame, the summaries' arithmetic on
// hand-computed records, and both `vit-relevance eval` commands end to end with the real
// DeiT-tiny graph on a few photos (shards + merge = one run, byte for byte).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { loadEvalCore } from '../../runtime/core-eval.js';
import { buildMosaics, mulberry32, seededShuffle } from '../../eval/mosaic.js';
import { mosaicInput, placeTiles, tilePreprocess, tileRects } from '../../eval/pointing-game-tiles.js';
import { hottestPixel, pixelInRect } from '../../eval/pointing-game-protocol.js';
import { kind as pointingGame } from '../../eval/pointing-game.js';
import { kind as segmentation } from '../../eval/segmentation.js';
import { binaryMask, maskInModelFrame, padToRect, regionInMask, sameAspect } from '../../eval/segmentation-mask.js';
import { runCli, shared, tempDir } from './maps-support.js';
import { coreBuilt, deitMethodIds, deitModel, haveDeit } from './explain-support.js';
import { segmentationFolder } from './eval-photos.js';

const samples = path.join(shared, 'imagenet', 'samples');
const synsetWords = path.join(shared, 'imagenet', 'synset_words.txt');
const skipCore = coreBuilt ? false : 'the WebAssembly core is not built: run `npm run build`';
const skipDeit = skipCore || (!haveDeit ? 'the DeiT-tiny explainer graph is not built: run `npm run build`'
  : !existsSync(synsetWords) ? `ImageNet samples not found in ${shared} (set VITREL_SHARED_DIR)` : false);

let corePromise;
const core = () => (corePromise ??= loadEvalCore());
const deitMetadata = async () => JSON.parse(await readFile(deitModel.replace(/\.onnx$/, '.json'), 'utf8'));

// 30 photos of 9 classes, some classes many times: grouping has to skip repeats.
const PHOTOS = Array.from({ length: 30 }, (_, i) => ({ name: `p${String(i).padStart(2, '0')}.png`, label: [0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8][i % 12] }));

test('mosaics: the same seed gives the same mosaics, whatever the input order', () => {
  const a = buildMosaics(PHOTOS, { seed: 7 });
  const b = buildMosaics(seededShuffle(PHOTOS, 99), { seed: 7 });
  assert.deepEqual(b, a);
  assert.ok(a.length >= 5, `only ${a.length} mosaics from 30 photos of 9 classes`);
  assert.deepEqual(a.map((m) => m.key), a.map((_, i) => `mosaic-${String(i + 1).padStart(4, '0')}`));
});

test('mosaics: other seeds give other mosaics; each holds four classes; no photo twice', () => {
  const names = (seed) => buildMosaics(PHOTOS, { seed }).map((m) => m.photos.map((p) => p.name).join(','));
  assert.notDeepEqual(names(0), names(1));
  assert.notDeepEqual(names(1), names(2));
  for (const seed of [0, 1, 2, 0xffffffff]) {
    const mosaics = buildMosaics(PHOTOS, { seed });
    const used = mosaics.flatMap((m) => m.photos.map((p) => p.name));
    assert.equal(new Set(used).size, used.length, `seed ${seed}: a photo in two mosaics`);
    for (const m of mosaics) {
      assert.equal(m.photos.length, 4);
      assert.equal(new Set(m.photos.map((p) => p.label)).size, 4, `seed ${seed}, ${m.key}: classes repeat`);
    }
  }
  // Three classes cannot fill a mosaic.
  assert.deepEqual(buildMosaics(PHOTOS.filter((p) => p.label < 3), { seed: 0 }), []);
  assert.throws(() => buildMosaics(PHOTOS, { seed: -1 }), /seed/);
});

test('mulberry32 is a fixed sequence in [0, 1)', () => {
  const take = (seed) => { const r = mulberry32(seed); return Array.from({ length: 5 }, r); };
  assert.deepEqual(take(42), take(42));
  assert.notDeepEqual(take(42), take(43));
  assert.ok(take(5).every((v) => v >= 0 && v < 1));
});

test('tiles: halved DeiT preprocessing, rectangles in mosaic order, placement by rows', () => {
  const spec = tilePreprocess({ resize: { mode: 'short_side', size: 256 }, crop: { mode: 'center', size: [224, 224] }, mean: [0, 0, 0], std: [1, 1, 1] });
  assert.deepEqual(spec.resize, { mode: 'short_side', size: 128 });
  assert.deepEqual(spec.crop, { mode: 'center', size: [112, 112] });
  assert.deepEqual(tileRects([224, 224]).map((r) => [r.x, r.y, r.width, r.height]),
    [[0, 0, 112, 112], [112, 0, 112, 112], [0, 112, 112, 112], [112, 112, 112, 112]]);
  // 1×1 tiles of values 1..4 → a 2×2 image read row by row.
  const tiles = [1, 2, 3, 4].map((v) => new Uint8Array([v, v, v, 255]));
  assert.deepEqual([...placeTiles(tiles, 1, 1)].filter((_, i) => i % 4 === 0), [1, 2, 3, 4]);
});

test('tiles: four solid photos give four solid quadrants, normalised with the model\'s mean/std', { skip: skipDeit }, async () => {
  const c = await core();
  const metadata = await deitMetadata();
  const colours = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [40, 80, 120]];
  // Different sizes and shapes, one at exactly the input size (passed through, shrunk whole).
  const sizes = [[300, 200], [150, 400], [224, 224], [640, 480]];
  const photos = colours.map((rgb, k) => {
    const [width, height] = sizes[k];
    const rgba = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) rgba.set([...rgb, 255], i * 4);
    return { rgba, width, height };
  });
  const { data, rgba } = mosaicInput(c, photos, metadata);
  const { mean, std } = metadata.preprocess;
  const plane = 224 * 224;
  for (const [k, rect] of tileRects([224, 224]).entries()) {
    for (const [dx, dy] of [[0, 0], [111, 0], [0, 111], [111, 111], [56, 56]]) {
      const p = (rect.y + dy) * 224 + rect.x + dx;
      assert.deepEqual([...rgba.subarray(p * 4, p * 4 + 3)], colours[k], `tile ${k + 1} pixel (${dx}, ${dy})`);
      for (let ch = 0; ch < 3; ch++) {
        const expected = (colours[k][ch] / 255 - mean[ch]) / std[ch];
        assert.ok(Math.abs(data[ch * plane + p] - expected) < 1e-5, `tile ${k + 1} channel ${ch}: ${data[ch * plane + p]} vs ${expected}`);
      }
    }
  }
});

test('pointing game: hottest pixel and its tile', () => {
  assert.equal(hottestPixel(new Float32Array([0, 3, 3, 1])), 1);
  assert.equal(hottestPixel(new Float32Array([0, 0, -1, 0])), -1, 'no positive value: no hottest pixel');
  const rect = { x: 2, y: 0, width: 2, height: 2 };
  assert.ok(pixelInRect(3, 4, rect));
  assert.ok(!pixelInRect(1, 4, rect));
  assert.ok(!pixelInRect(-1, 4, rect));
});

test('pointing game summary: mean share and hit rate over all tiles, by hand', () => {
  const records = [
    { photos: ['a', 'b', 'c', 'd'], classes: [1, 2, 3, 4], predicted: 2, shares: { m: [1, 0.5, 0.25, 0.25], r: [0.25, 0.25, 0.25, 0.25] }, hits: { m: [1, 1, 0, 0], r: [1, 0, 0, 0] } },
    { photos: ['e', 'f', 'g', 'h'], classes: [5, 6, 7, 8], predicted: 9, shares: { m: [0, 0.5, 0.5, 1], r: [0.25, 0.25, 0.25, 0.25] }, hits: { m: [0, 1, 1, 1], r: [1, 0, 0, 0] } },
  ];
  const s = pointingGame.summarize(records, { methods: ['m', 'r'], seed: 3, grid: 2, model: 'x', startLayer: 1 });
  assert.equal(s.n, 2);
  assert.equal(s.tiles, 8);
  assert.equal(s.seed, 3);
  assert.equal(s.score.m, 4 / 8);
  assert.equal(s.score.r, 0.25);
  assert.equal(s.hitRate.m, 5 / 8);
  assert.equal(s.hitRate.r, 2 / 8);
  assert.equal(s.predictedAmongTiles, 0.5);
  const [md, csv] = pointingGame.reports(s);
  assert.match(md.text, /\| m \| 50\.00 \| 62\.50 \|/);
  assert.equal(csv.text, 'method,score,hit_rate\nm,0.500000,0.625000\nr,0.250000,0.250000\n');
});

test('segmentation summary: pixel accuracy, mIoU and mAP accumulated over the photos, by hand', () => {
  const counts = (correct, labeled, intersection, union, averagePrecision) => ({ correct, labeled, intersection, union, averagePrecision });
  const records = [
    { predicted: 1, label: 1, counts: { m: counts(6, 8, [3, 3], [4, 5], 0.5) } },
    { predicted: 2, label: 3, counts: { m: counts(2, 4, [1, 1], [3, 3], 1) } },
  ];
  const s = segmentation.summarize(records, { methods: ['m'], model: 'x', startLayer: 1 });
  assert.equal(s.n, 2);
  assert.ok(Math.abs(s.pixelAccuracy.m - (100 * 8) / 12) < 1e-12);
  assert.ok(Math.abs(s.iou.m[0] - (100 * 4) / 7) < 1e-12);
  assert.ok(Math.abs(s.iou.m[1] - 50) < 1e-12);
  assert.ok(Math.abs(s.mIoU.m - ((100 * 4) / 7 + 50) / 2) < 1e-12);
  assert.equal(s.mAP.m, 75);
  assert.equal(s.top1, 0.5);
});

test('segmentation summary from the core\'s own counts of tiny maps', { skip: skipCore }, async () => {
  const c = await core();
  // Map [0, 1, 2, 3] vs mask [0, 0, 1, 1]: mean 0.5 of the normalised map splits it exactly.
  const perfect = c.segmentationCounts(new Float32Array([0, 1, 2, 3]), new Uint8Array([0, 0, 1, 1]));
  // Map [3, 2, 1, 0]: everything wrong; AP of the soft map: fg 0.5·(1/3)+0.5·(2/4), bg the same.
  const wrong = c.segmentationCounts(new Float32Array([3, 2, 1, 0]), new Uint8Array([0, 0, 1, 1]));
  const record = (x) => ({ predicted: 0, counts: { m: { ...x, intersection: [...x.intersection], union: [...x.union] } } });
  const s = segmentation.summarize([record(perfect), record(wrong)], { methods: ['m'], model: 'x', startLayer: 1 });
  assert.equal(s.pixelAccuracy.m, 50);
  for (const iou of s.iou.m) assert.ok(Math.abs(iou - (100 * 2) / 6) < 1e-12, `IoU ${iou}`);
  const apWrong = 0.5 * (1 / 3) + 0.5 * (2 / 4);
  assert.ok(Math.abs(s.mAP.m - (100 * (1 + apWrong)) / 2) < 1e-9, `mAP ${s.mAP.m}`);
  assert.equal(s.top1, null);
});

test('masks: any colour is foreground; the photo region scales into mask pixels; padding is background', () => {
  assert.deepEqual([...binaryMask(new Uint8Array([0, 0, 0, 255, 255, 255, 255, 255, 0, 0, 9, 255, 1, 0, 0, 0]), 4, 1)], [0, 1, 1, 1]);
  assert.ok(sameAspect(500, 375, 250, 188));
  assert.ok(!sameAspect(500, 375, 250, 250));
  assert.deepEqual(regionInMask({ x: 85.04, y: 23.44, width: 328.45, height: 328.13 }, 500, 375, 250, 188),
    { x: 43, y: 12, width: 164, height: 164 });
  const padded = padToRect(new Uint8Array([1, 1, 1, 1]), 2, 2, { x: -1, y: 0, width: 3, height: 3 });
  assert.deepEqual([padded.width, padded.height, padded.rect.x], [3, 3, 0]);
  assert.deepEqual([...padded.mask], [0, 1, 1, 0, 1, 1, 0, 0, 0]);
});

test('masks: a centre square lands where the crop puts it, at full and at half size', { skip: skipDeit }, async () => {
  const c = await core();
  const metadata = await deitMetadata();
  const photo = { width: 500, height: 375 };
  const region = c.inputRegion(photo.width, photo.height, metadata.preprocess);
  const square = (w, h) => {
    const m = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) m[y * w + x] = x >= w / 4 && x < (3 * w) / 4 && y >= h / 4 && y < (3 * h) / 4 ? 1 : 0;
    return m;
  };
  const full = maskInModelFrame(c, square(500, 375), 500, 375, photo, region, [224, 224]);
  const half = maskInModelFrame(c, square(250, 188), 250, 188, photo, region, [224, 224]);
  // Photo x 125…374 in the crop's 328-pixel-wide window from x 85 → columns 27…197.
  const row = 112 * 224;
  const cols = [...full.subarray(row, row + 224)];
  assert.equal(cols.indexOf(1), 27);
  assert.equal(cols.lastIndexOf(1), 197);
  let agree = 0;
  for (let i = 0; i < full.length; i++) agree += full[i] === half[i] ? 1 : 0;
  assert.ok(agree / full.length > 0.99, `half-size mask agrees on ${((100 * agree) / full.length).toFixed(2)} % only`);
  assert.throws(() => maskInModelFrame(c, square(100, 100), 100, 100, photo, region, [224, 224]), /aspect ratio/);
});

const evalArgs = (sub, extra) => ['eval', sub, '--model', deitModel, '--quiet', ...extra];

test('eval pointing-game: two mosaics of the ImageNet samples end to end', { skip: skipDeit }, async () => {
  const out = tempDir('vitrel-pg-');
  const r = runCli(evalArgs('pointing-game', ['--images', samples, '--labels', synsetWords, '--limit', '2', '--out', out]));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /mosaic\(s\) of 2×2 from \d+ labelled photo\(s\), seed 0/);
  const s = JSON.parse(await readFile(path.join(out, 'pointing-game.json'), 'utf8'));
  assert.equal(s.n, 2);
  assert.equal(s.tiles, 8);
  assert.equal(s.seed, 0);
  assert.deepEqual(s.methods, await deitMethodIds());
  for (const m of s.methods) {
    for (const v of [s.score[m], s.hitRate[m]]) assert.ok(v >= 0 && v <= 1, `${m}: ${v}`);
  }
  // A class-agnostic map is the same for the four classes: its shares sum to 1 per mosaic.
  assert.ok(Math.abs(s.score.raw_attention - 0.25) < 1e-9);
  const records = (await readFile(path.join(out, 'records.jsonl'), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(records.map((e) => e.key), ['mosaic-0001', 'mosaic-0002']);
  for (const { record } of records) {
    assert.equal(new Set(record.classes).size, 4);
    assert.equal(record.photos.length, 4);
  }
  assert.match(await readFile(path.join(out, 'pointing-game.md'), 'utf8'), /\| transformer_attribution \|/);
  assert.match(await readFile(path.join(out, 'pointing-game.csv'), 'utf8'), /^method,score,hit_rate\n/);

  // Resuming on another photo list would give the same keys to other mosaics: refused,
  // before the model loads.
  const fewer = tempDir('vitrel-pg-photos-');
  for (const name of photosOf(records)) await copyFile(path.join(samples, name), path.join(fewer, name));
  const again = runCli(evalArgs('pointing-game', ['--images', fewer, '--labels', synsetWords, '--limit', '2', '--out', out]));
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /computed on other data \(fileCount: 500 vs 8; fileListSha256: [0-9a-f]{16}… vs [0-9a-f]{16}…; images: /);
});

const photosOf = (records) => records.flatMap(({ record }) => record.photos);

const RUN_FILES = ['run.json', 'records.jsonl', 'segmentation.json', 'segmentation.md', 'segmentation.csv'];

test('eval segmentation end to end; two shards merged equal one run byte for byte', { skip: skipDeit }, async () => {
  const { dir, images, masks } = await segmentationFolder();
  const args = (out, extra = []) => evalArgs('segmentation', ['--images', images, '--masks', masks, '--out', out, ...extra]);
  const whole = path.join(dir, 'whole');
  const r = runCli(args(whole));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /skipped 1 photo\(s\) without a mask .*n01498041_stingray\.JPEG/);
  const s = JSON.parse(await readFile(path.join(whole, 'segmentation.json'), 'utf8'));
  assert.equal(s.n, 3);
  assert.equal(s.top1, null);
  for (const m of s.methods) {
    for (const v of [s.pixelAccuracy[m], s.mIoU[m], s.mAP[m], ...s.iou[m]]) assert.ok(v >= 0 && v <= 100, `${m}: ${v}`);
  }

  const shards = ['1/2', '2/2'].map((shard, i) => {
    const out = path.join(dir, `shard${i + 1}`);
    const rs = runCli(args(out, ['--shard', shard]));
    assert.equal(rs.status, 0, rs.stderr);
    return out;
  });
  const merged = path.join(dir, 'merged');
  const rm = runCli(['eval', 'merge', ...shards, '--out', merged]);
  assert.equal(rm.status, 0, rm.stderr);
  for (const file of RUN_FILES) {
    assert.equal(await readFile(path.join(merged, file), 'utf8'), await readFile(path.join(whole, file), 'utf8'), `${file} differs`);
  }
});

test('eval segmentation: no mask at all, or a mask of another shape, is one clear line', { skip: skipDeit }, async () => {
  const { dir, images } = await segmentationFolder();
  const empty = path.join(dir, 'empty');
  await mkdir(empty);
  const r = runCli(evalArgs('segmentation', ['--images', images, '--masks', empty, '--out', path.join(dir, 'o1')]));
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /^vit-relevance eval: error: no photo in .* has a mask <stem>\.png in /);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);

  const odd = path.join(dir, 'odd');
  await mkdir(odd);
  await sharp(Buffer.alloc(64 * 64), { raw: { width: 64, height: 64, channels: 1 } }).png().toFile(path.join(odd, 'n01440764_tench.png'));
  const r2 = runCli(evalArgs('segmentation', ['--images', images, '--masks', odd, '--out', path.join(dir, 'o2')]));
  assert.notEqual(r2.status, 0);
  assert.match(r2.stderr, /n01440764_tench\.png: the mask is 64x64, its photo 500x375/);
});
