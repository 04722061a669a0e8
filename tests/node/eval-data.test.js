// What an evaluation ran on (run.json `data`): a resume or merge on other photos or labels
// is refused; unreadable photos stop the run or are skipped and recorded
// (--on-unreadable); user errors are one UserError class. No model: the fake kind.
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { tempDir, runCli } from './maps-support.js';
import { fakeKind, fakeItems, fakeSettings, processFake } from './eval-fake.js';
import { describeData } from '../../eval/node/data-identity.js';
import { runEvaluation, UnreadableError } from '../../eval/node/run.js';
import { mergeRuns } from '../../eval/node/merge.js';
import { readRecords } from '../../eval/node/records.js';
import { parseShard } from '../../eval/node/shard.js';
import { decodePhoto } from '../../eval/node/photo.js';
import { UserError } from '../../runtime/errors.js';
import { UsageError } from '../../cli/args.js';
import { parseNpy } from '../../runtime/npy.js';

const quiet = { quiet: true };

function photoFolder(files) {
  const dir = tempDir('vitrel-data-');
  for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(dir, name), bytes);
  return dir;
}
const filesOf = (dir) => readdirSync(dir).sort().map((name) => ({ name, file: path.join(dir, name) }));

test('data identity: folder, labels sha256 and a digest of names and sizes, in any order', async () => {
  const dir = photoFolder({ 'a.png': 'aa', 'b.png': 'bbb' });
  const labels = path.join(tempDir(), 'labels.csv');
  writeFileSync(labels, 'a.png,0\nb.png,1\n');
  const data = await describeData({ images: dir, labels, files: filesOf(dir) });
  assert.equal(data.images, path.resolve(dir));
  assert.equal(data.labelsSha256, createHash('sha256').update('a.png,0\nb.png,1\n').digest('hex'));
  assert.equal(data.fileListSha256, createHash('sha256').update('a.png\t2\nb.png\t3\n').digest('hex'));
  assert.equal(data.fileCount, 2);
  assert.deepEqual(await describeData({ images: dir, labels, files: filesOf(dir).reverse() }), data, 'order does not matter');
  utimesSync(path.join(dir, 'a.png'), new Date(0), new Date(0));
  assert.deepEqual(await describeData({ images: dir, labels, files: filesOf(dir) }), data, 'times do not matter (copies keep their identity)');

  writeFileSync(path.join(dir, 'a.png'), 'a different photo');
  assert.notEqual((await describeData({ images: dir, labels, files: filesOf(dir) })).fileListSha256, data.fileListSha256);
  writeFileSync(labels, 'a.png,1\nb.png,0\n');
  assert.notEqual((await describeData({ images: dir, labels, files: filesOf(dir) })).labelsSha256, data.labelsSha256);
  assert.equal((await describeData({ images: dir, files: filesOf(dir) })).labelsSha256, null);
});

test('a resume or a merge on other data is refused, naming what differs', async () => {
  const base = tempDir();
  const out = path.join(base, 'run');
  const data = { images: '/photos/a', labelsSha256: 'l1', masks: null, fileCount: 23, fileListSha256: 'f1' };
  const job = { kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: out, processItem: processFake, progress: quiet };
  await runEvaluation({ ...job, data, limit: 2 });
  const r = await runEvaluation({ ...job, data: { ...data } });
  assert.deepEqual([r.resumed, r.processed, r.summary.n], [2, 21, 23], 'the same data resumes');

  for (const [change, pattern] of [
    [{ images: '/photos/b' }, /computed on other data \(images: "\/photos\/a" vs "\/photos\/b"\)/],
    [{ labelsSha256: 'l2' }, /other data \(labelsSha256: "l1" vs "l2"\)/],
    [{ fileCount: 2, fileListSha256: 'f2' }, /other data \(fileCount: 23 vs 2; fileListSha256: "f1" vs "f2"\)/],
  ]) {
    await assert.rejects(runEvaluation({ ...job, data: { ...data, ...change } }), (err) => err instanceof UserError && pattern.test(err.message));
  }
  const other = path.join(base, 'other');
  await runEvaluation({ ...job, outDir: other, data: { ...data, images: '/photos/b' }, limit: 2 });
  await assert.rejects(mergeRuns({ dirs: [out, other], outDir: path.join(base, 'm'), kind: fakeKind }), /other data \(images: /);
  const merged = path.join(base, 'm2');
  await mergeRuns({ dirs: [out, out], outDir: merged, kind: fakeKind });
  assert.deepEqual(JSON.parse(readFileSync(path.join(merged, 'run.json'), 'utf8')).data, data, 'a merge keeps the data');
});

// Items 4 and 9 cannot be read.
const UNREADABLE = new Set([4, 9]);
const processSome = async (item) => {
  if (UNREADABLE.has(item.value)) throw new UnreadableError(`${item.name} is not a readable image (PNG, JPEG, WebP, …): truncated`);
  return processFake(item);
};

test('--on-unreadable stop (default) ends the run naming the photo and the way on', async () => {
  const out = path.join(tempDir(), 'run');
  await assert.rejects(runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: out, processItem: processSome, progress: quiet }),
    (err) => err instanceof UserError && /^img_004\.png is not a readable image .*rerun with --on-unreadable skip/.test(err.message));
  assert.equal((await readRecords(out)).size, 4, 'the photos before it are kept');
});

test('--on-unreadable skip records the reason, counts it, resumes without retrying, merges byte-identically', async () => {
  const base = tempDir();
  const whole = path.join(base, 'whole');
  const seen = [];
  const processItem = async (item) => { seen.push(item.name); return processSome(item); };
  const job = { kind: fakeKind, items: fakeItems, settings: fakeSettings, processItem, onUnreadable: 'skip', progress: quiet };
  let r = await runEvaluation({ ...job, outDir: whole, limit: 6 });
  assert.deepEqual([r.processed, r.skipped, r.summary.n, r.summary.skipped], [6, 1, 5, 1]);
  r = await runEvaluation({ ...job, outDir: whole });
  assert.deepEqual([r.processed, r.resumed, r.skipped, r.summary.n, r.summary.skipped], [17, 6, 1, 21, 2]);
  assert.equal(seen.length, 23, 'a skipped photo is not retried on resume');
  assert.deepEqual((await readRecords(whole)).get('img_009.png'), { skipped: 'img_009.png is not a readable image (PNG, JPEG, WebP, …): truncated' });
  assert.equal(readFileSync(path.join(whole, 'skipped.csv'), 'utf8'),
    'item,reason\nimg_004.png,"img_004.png is not a readable image (PNG, JPEG, WebP, …): truncated"\nimg_009.png,"img_009.png is not a readable image (PNG, JPEG, WebP, …): truncated"\n');
  assert.equal(JSON.parse(readFileSync(path.join(whole, 'fake.json'), 'utf8')).n, 21, 'the summary leaves them out');

  const dirs = [1, 2].map((i) => path.join(base, `s${i}`));
  for (const [i, dir] of dirs.entries()) await runEvaluation({ ...job, outDir: dir, shard: parseShard(`${i + 1}/2`) });
  const merged = path.join(base, 'merged');
  await mergeRuns({ dirs, outDir: merged, kind: fakeKind });
  for (const file of readdirSync(whole)) {
    assert.equal(readFileSync(path.join(merged, file), 'utf8'), readFileSync(path.join(whole, file), 'utf8'), file);
  }
});

test('decodePhoto: a damaged or missing photo is an UnreadableError naming it, without its folder', async () => {
  const dir = photoFolder({ 'broken.png': 'not a png' });
  await assert.rejects(decodePhoto(path.join(dir, 'broken.png'), 'broken.png'),
    (err) => err instanceof UnreadableError && /^broken\.png is not a readable image/.test(err.message) && !err.message.includes(dir));
  await assert.rejects(decodePhoto(path.join(dir, 'gone.png'), 'gone.png'),
    (err) => err instanceof UnreadableError && err.message === 'cannot read image gone.png: no such file');
});

test('user errors are one class: UserError, with UsageError for the command line (exit 2)', () => {
  assert.throws(() => parseShard('9/2'), (err) => err instanceof UserError && err.exitCode === 1);
  assert.throws(() => parseNpy(new Uint8Array(4), 'x.npy'), (err) => err instanceof UserError && /^x\.npy: /.test(err.message));
  const usage = new UsageError('bad flag');
  assert.ok(usage instanceof UserError);
  assert.equal(usage.exitCode, 2);
  // The CLI prints it as one line with its exit code, before any file is read.
  const dir = tempDir();
  mkdirSync(path.join(dir, 'images'));
  const r = runCli(['eval', 'perturbation', '--images', path.join(dir, 'images'), '--labels', path.join(dir, 'l.txt'),
    '--model', path.join(dir, 'm.onnx'), '--out', path.join(dir, 'o'), '--on-unreadable', 'later']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^vit-relevance eval: error: --on-unreadable must be stop or skip, got "later"\n$/);
});
