// Every `vit-relevance eval` kind is byte-reproducible: two runs of the same command (into
// two folders) write the same bytes in every file — run.json, records.jsonl, the summary,
// the reports, skipped.csv — and so does `eval merge`. Timings are printed, never written.
// Also end to end with the real DeiT-tiny: an unreadable photo stops a run or is skipped
// (--on-unreadable), and an --out folder of other photos with the same names is refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { runCli, shared, tempDir } from './maps-support.js';
import { deitModel, skipDeit } from './explain-support.js';
import { samples, segmentationFolder } from './eval-photos.js';

const synsets = path.join(shared, 'imagenet', 'synset_words.txt');
const skip = skipDeit || (!existsSync(samples) && `no labelled photos in ${samples}`);
const METHODS = 'transformer_attribution,raw_attention';

const filesOf = (dir) => Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));

const evalCli = (kind, args) => runCli(['eval', kind, '--model', deitModel, '--methods', METHODS, '--quiet', ...args]);

// Runs `args` into two new folders; both must succeed and hold the same bytes. → folder 1
function twice(kind, args, base) {
  const dirs = ['a', 'b'].map((n) => path.join(base, `${kind}-${n}`));
  for (const out of dirs) {
    const r = evalCli(kind, [...args, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
  }
  const [a, b] = dirs.map(filesOf);
  assert.ok(Object.keys(a).length >= 4, Object.keys(a).join(', '));
  assert.deepEqual(b, a, `${kind}: two runs differ`);
  return dirs[0];
}

// A merge of one folder is that folder, and two merges are the same bytes.
function mergesTwice(dir, base) {
  const outs = ['m1', 'm2'].map((n) => path.join(base, `${path.basename(dir)}-${n}`));
  for (const out of outs) {
    const r = runCli(['eval', 'merge', dir, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(filesOf(out), filesOf(dir), `merge of ${dir}`);
  }
}

// Two labelled photos, one that is not a photo at all (sorted first) and a 1×5000 strip
// the core cannot preprocess.
async function photosWithBrokenOnes(base) {
  const dir = path.join(base, 'photos');
  mkdirSync(dir);
  for (const name of ['n01440764_tench.JPEG', 'n01484850_great_white_shark.JPEG']) copyFileSync(path.join(samples, name), path.join(dir, name));
  writeFileSync(path.join(dir, 'n01440764_a_damaged_download.JPEG'), Buffer.from('<html>403 Forbidden</html>'));
  await sharp(Buffer.alloc(5000 * 3, 128), { raw: { width: 1, height: 5000, channels: 3 } }).png().toFile(path.join(dir, 'n01440764_b_strip.png'));
  return dir;
}

test('eval perturbation: two runs and two merges are byte-identical; unreadable photos stop or are skipped', { skip, timeout: 600_000 }, async () => {
  const base = tempDir('vitrel-repro-');
  const images = await photosWithBrokenOnes(base);
  const stop = evalCli('perturbation', ['--images', images, '--labels', synsets, '--out', path.join(base, 'stopped')]);
  assert.equal(stop.status, 1, stop.stderr);
  assert.match(stop.stderr, /^vit-relevance eval: error: n01440764_a_damaged_download\.JPEG is not a readable image .*\(rerun with --on-unreadable skip to record it as skipped and go on\)\n$/);

  const out = twice('perturbation', ['--images', images, '--labels', synsets, '--on-unreadable', 'skip'], base);
  const files = filesOf(out);
  assert.equal(JSON.parse(files['perturbation.json']).n, 2);
  assert.equal(JSON.parse(files['perturbation.json']).skipped, 2);
  const skipped = files['skipped.csv'].split('\n');
  assert.equal(skipped[0], 'item,reason');
  assert.match(skipped[1], /^n01440764_a_damaged_download\.JPEG,"?n01440764_a_damaged_download\.JPEG is not a readable image/);
  assert.match(skipped[2], /^n01440764_b_strip\.png,"?n01440764_b_strip\.png is only 1×5000 px\. The model reads 16×16 patches/);
  assert.match(files['perturbation.md'], /2 photo\(s\) could not be read or preprocessed and were skipped \(skipped\.csv\)/);
  assert.doesNotMatch(files['records.jsonl'] + files['run.json'] + files['perturbation.json'], /Ms"|timing/i, 'no timings in the files');
  mergesTwice(out, base);

  // The same --out with another folder whose photos have the same names: refused, before
  // the model loads, and the folder is left as it was (it used to resume and report n = 4).
  const other = path.join(base, 'other');
  mkdirSync(other);
  copyFileSync(path.join(samples, 'n01494475_hammerhead.JPEG'), path.join(other, 'n01440764_tench.JPEG'));
  copyFileSync(path.join(samples, 'n01498041_stingray.JPEG'), path.join(other, 'n01484850_great_white_shark.JPEG'));
  const mixed = evalCli('perturbation', ['--images', other, '--labels', synsets, '--out', out]);
  assert.equal(mixed.status, 1, mixed.stderr);
  assert.match(mixed.stderr, /was computed on other data \(fileCount: 4 vs 2; fileListSha256: .*; images: ".*photos" vs ".*other"\)/);
  assert.deepEqual(filesOf(out), files);
});

test('eval pointing-game: two runs and two merges are byte-identical', { skip, timeout: 600_000 }, async () => {
  const base = tempDir('vitrel-repro-');
  const out = twice('pointing-game', ['--images', samples, '--labels', synsets, '--limit', '1'], base);
  assert.equal(JSON.parse(readFileSync(path.join(out, 'pointing-game.json'), 'utf8')).n, 1);
  mergesTwice(out, base);
});

test('eval segmentation: two runs and two merges are byte-identical', { skip, timeout: 600_000 }, async () => {
  const base = tempDir('vitrel-repro-');
  const { images, masks } = await segmentationFolder();
  const out = twice('segmentation', ['--images', images, '--masks', masks, '--limit', '2'], base);
  assert.equal(JSON.parse(readFileSync(path.join(out, 'segmentation.json'), 'utf8')).n, 2);
  mergesTwice(out, base);
});
