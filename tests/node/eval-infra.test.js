// The infrastructure every `vit-relevance eval` evaluation shares: photo listing and
// labels, shards, resumable run folders, runEvaluation and merge (with a fake kind doing
// arithmetic, no model), report tables and charts, the progress line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir, runCli, shared } from './maps-support.js';
import { listPhotos, loadDataset, parseCsv, compareNames } from '../../eval/node/dataset.js';
import { parseShard, shardItems, selectItems } from '../../eval/node/shard.js';
import { openRun, readRecords, RECORDS_FILE } from '../../eval/node/records.js';
import { runEvaluation } from '../../eval/node/run.js';
import { mergeRuns } from '../../eval/node/merge.js';
import { canonicalJson } from '../../eval/node/json.js';
import { estimate, formatDuration, formatProgressLine, formatRate, createProgress } from '../../eval/node/progress.js';
import { markdownTable, csvTable, formatCell } from '../../eval/report-table.js';
import { lineChartSvg, niceTicks } from '../../eval/report-svg.js';
import { splitMergeArgv } from '../../cli/commands/eval-merge.js';
import { fakeKind, fakeItems, fakeSettings, processFake } from './eval-fake.js';

const WNIDS = ['n00000001', 'n00000002', 'n00000003'];
const METADATA = {
  labels: ['tench', 'goldfish', 'tabby'],
  label_names: ['tench, Tinca tinca', 'goldfish, Carassius auratus', 'tabby, tabby cat'],
  wnids: WNIDS,
};

function folder(files) {
  const dir = tempDir('vitrel-eval-');
  for (const f of files) writeFileSync(path.join(dir, f), 'x');
  return dir;
}

function synsetFile(dir, wnids = WNIDS) {
  const file = path.join(dir, 'synset_words.txt');
  writeFileSync(file, wnids.map((w, i) => `${w} ${METADATA.label_names[i]}`).join('\n') + '\n');
  return file;
}

// --- photos and labels ---------------------------------------------------------------

test('listPhotos: PNG/JPEG/WebP by extension in any case, sorted by code unit', async () => {
  const dir = folder(['b.JPG', 'a.png', 'C.webp', 'd.jpeg', 'notes.txt', 'e.gif']);
  mkdirSync(path.join(dir, 'sub.png'));
  assert.deepEqual(await listPhotos(dir), ['C.webp', 'a.png', 'b.JPG', 'd.jpeg']);
  assert.ok(compareNames('Z', 'a') < 0 && compareNames('a10', 'a9') < 0);
  await assert.rejects(listPhotos(path.join(dir, 'missing')), /image folder .*missing does not exist/);
  await assert.rejects(listPhotos(folder(['x.txt'])), /holds no photos/);
});

test('labels from <wnid>_ file names and synset_words.txt', async () => {
  const dir = folder(['n00000003_cat.png', 'n00000001_fish_1.JPEG', 'n00000001_fish_2.jpg']);
  const labels = synsetFile(tempDir());
  const { items } = await loadDataset({ images: dir, labels, metadata: METADATA });
  assert.deepEqual(items.map((i) => [i.name, i.label]), [
    ['n00000001_fish_1.JPEG', 0], ['n00000001_fish_2.jpg', 0], ['n00000003_cat.png', 2]]);
  assert.equal(items[0].file, path.join(dir, 'n00000001_fish_1.JPEG'));
  // Without metadata too (class id = line index).
  assert.equal((await loadDataset({ images: dir, labels })).items.length, 3);
});

test('synset labels: unknown wnids, unlabelled photos and a foreign class order are refused', async () => {
  const labels = synsetFile(tempDir());
  await assert.rejects(loadDataset({ images: folder(['n00000009_x.png', 'n00000001_a.png']), labels }),
    { name: 'UserError', message: /1 photo\(s\) name a wnid that synset_words.txt does not list: n00000009_x.png/ });
  const mixed = folder(['n00000001_a.png', 'holiday.jpg', 'IMG_1.jpg', 'c.png', 'd.png', 'e.png', 'f.png']);
  await assert.rejects(loadDataset({ images: mixed, labels }), /6 photo\(s\) .* have no label in synset_words.txt: IMG_1.jpg, c.png, d.png, e.png, f.png and 1 more \(--skip-unlabelled/);
  const { items, skipped } = await loadDataset({ images: mixed, labels, skipUnlabelled: true });
  assert.deepEqual(items.map((i) => i.name), ['n00000001_a.png']);
  assert.equal(skipped.length, 6);
  const swapped = synsetFile(tempDir(), [WNIDS[1], WNIDS[0], WNIDS[2]]);
  await assert.rejects(loadDataset({ images: mixed, labels: swapped, metadata: METADATA }), /line 1 is n00000002, the model's class 0 is n00000001/);
  await assert.rejects(loadDataset({ images: mixed, labels: path.join(mixed, 'none.txt') }), /cannot read label file .*none.txt: no such file/);
});

test('the ImageNet samples are labelled from their names', { skip: !existsSync(path.join(shared, 'imagenet', 'samples')) }, async () => {
  const { items } = await loadDataset({ images: path.join(shared, 'imagenet', 'samples'), labels: path.join(shared, 'imagenet', 'synset_words.txt') });
  assert.equal(items.length, 500);
  assert.deepEqual([items[0].name, items[0].label], ['n01440764_tench.JPEG', 0]);
});

test('labels from a CSV: class ids, wnids and names, header optional, quoted fields', async () => {
  const dir = folder(['a.png', 'b.png', 'c b.jpg', 'd.webp']);
  const csv = path.join(dir, 'labels.csv');
  writeFileSync(csv, 'File,Label\r\na.png,2\nb.png,n00000002\n"c b.jpg","Tabby Cat"\n\nd.webp, tench \n');
  const { items } = await loadDataset({ images: dir, labels: csv, metadata: METADATA });
  assert.deepEqual(items.map((i) => [i.name, i.label]), [['a.png', 2], ['b.png', 1], ['c b.jpg', 2], ['d.webp', 0]]);
  writeFileSync(csv, 'a.png,0\nb.png,1\nc b.jpg,1\nd.webp,1\n');
  assert.equal((await loadDataset({ images: dir, labels: csv, metadata: METADATA })).items.length, 4);
  assert.deepEqual(parseCsv('x,"say ""hi"", ok"\n'), [['x', 'say "hi", ok']]);
});

test('CSV labels: missing files, bad labels, double labels and unlabelled photos are refused', async () => {
  const dir = folder(['a.png', 'b.png']);
  const csv = path.join(dir, 'labels.csv');
  const refuses = async (text, pattern) => {
    writeFileSync(csv, text);
    await assert.rejects(loadDataset({ images: dir, labels: csv, metadata: METADATA }), pattern);
  };
  await refuses('a.png,0\nb.png,1\nz.png,1\n', /labels.csv names 1 file\(s\) that are not photos in .*: z.png/);
  await refuses('a.png,7\n', /row 1 \(a.png\): label 7 is out of range/);
  await refuses('a.png,goldfsh\n', /row 1 \(a.png\): label "goldfsh" is not a class of this model. Close matches: 1 \(goldfish/);
  await refuses('a.png,n00000042\n', /wnid n00000042 is not a class of this model/);
  await refuses('a.png,0\na.png,1\n', /row 2: a.png is labelled twice, as 0 and 1/);
  await refuses('a.png,0,extra\n', /row 1 has 3 field\(s\)/);
  await refuses('a.png,0\n', /1 photo\(s\) in .* have no label in labels.csv: b.png/);
});

// --- shards ----------------------------------------------------------------------------

test('shards partition the sorted list exactly', () => {
  const items = Array.from({ length: 11 }, (_, i) => i);
  for (let n = 1; n <= 5; n++) {
    const parts = Array.from({ length: n }, (_, i) => shardItems(items, parseShard(`${i + 1}/${n}`)));
    assert.deepEqual(parts.flat().sort((a, b) => a - b), items);
    parts.forEach((part, i) => assert.ok(part.every((p) => p % n === i)));
  }
  assert.deepEqual(selectItems(items, parseShard('2/3'), 2), [1, 4]);
  assert.deepEqual(selectItems(items, null, 3), [0, 1, 2]);
  assert.equal(parseShard(undefined), null);
  for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '1/2/3', '-1/2']) {
    assert.throws(() => parseShard(bad), { name: 'UserError', message: /--shard/ }, bad);
  }
});

// --- run folders -----------------------------------------------------------------------

test('records resume after a truncated last line; other settings, kinds and shards are refused', async () => {
  const dir = path.join(tempDir(), 'run');
  const setup = { kind: 'fake', settings: { model: 'abc', fractions: [0.1, 0.2] }, shard: { index: 1, count: 2 } };
  let run = await openRun(dir, setup);
  await run.append('a.png', { record: { v: 1 } });
  await run.append('b.png', { record: { v: 2 } });
  await run.close();
  appendFileSync(path.join(dir, RECORDS_FILE), '{"key":"c.png","rec'); // killed mid-write

  // Same settings with keys in another order: the same run.
  run = await openRun(dir, { ...setup, settings: { fractions: [0.1, 0.2], model: 'abc' } });
  assert.deepEqual([...run.done.keys()], ['a.png', 'b.png']);
  await run.append('c.png', { skipped: 'c.png is not a readable image' });
  await run.close();
  assert.deepEqual([...(await readRecords(dir)).entries()],
    [['a.png', { record: { v: 1 } }], ['b.png', { record: { v: 2 } }], ['c.png', { skipped: 'c.png is not a readable image' }]]);

  await assert.rejects(openRun(dir, { ...setup, settings: { model: 'abc', fractions: [0.1] } }),
    /other settings \(fractions: \[0.1,0.2\] vs \[0.1\]\)/);
  await assert.rejects(openRun(dir, { ...setup, kind: 'other' }), /holds a fake evaluation, not other/);
  await assert.rejects(openRun(dir, { ...setup, shard: null }), /holds shard 1\/2, this run is shard all/);

  writeFileSync(path.join(dir, RECORDS_FILE), '{"key":"a.png","record":1}\nnot json\n{"key":"b.png","record":2}\n');
  await assert.rejects(readRecords(dir), /line 2 is not JSON/);
});

const quiet = { quiet: true };

function folderFiles(dir, names) {
  return Object.fromEntries(names.map((n) => [n, readFileSync(path.join(dir, n), 'utf8')]));
}
const OUTPUT_FILES = ['fake.json', 'fake.md', 'fake.csv', 'fake.svg', 'records.jsonl'];

test('runEvaluation: unsharded vs 3 shards merged give byte-identical files', async () => {
  const base = tempDir();
  const whole = path.join(base, 'whole');
  const r = await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: whole, processItem: processFake, progress: quiet });
  assert.equal(r.total, 23);
  assert.equal(r.summary.n, 23);
  assert.deepEqual(readdirSync(whole).sort(), ['fake.csv', 'fake.json', 'fake.md', 'fake.svg', 'records.jsonl', 'run.json']);

  // Shards processed in reverse item order, to be sure order does not leak into results.
  const dirs = [];
  for (const i of [3, 1, 2]) {
    const dir = path.join(base, `shard${i}`);
    dirs.push(dir);
    await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: dir, shard: parseShard(`${i}/3`), processItem: processFake, progress: quiet });
  }
  const merged = path.join(base, 'merged');
  const m = await mergeRuns({ dirs, outDir: merged, kind: fakeKind });
  assert.equal(m.records, 23);
  assert.deepEqual(m.missing, []);
  assert.deepEqual(folderFiles(merged, OUTPUT_FILES), folderFiles(whole, OUTPUT_FILES));
  assert.deepEqual(JSON.parse(readFileSync(path.join(merged, 'run.json'), 'utf8')), { kind: 'fake', settings: fakeSettings, data: null, shard: null });

  const partial = await mergeRuns({ dirs: dirs.slice(0, 2), outDir: path.join(base, 'partial'), kind: fakeKind });
  assert.deepEqual(partial.missing, ['2/3']);
  await assert.rejects(mergeRuns({ dirs, outDir: merged, kind: fakeKind }), /already holds a run/);
});

test('runEvaluation resumes: finished items are not processed again, limit applies to the shard', async () => {
  const dir = path.join(tempDir(), 'run');
  const seen = [];
  const processItem = async (item) => { seen.push(item.name); return processFake(item); };
  let r = await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: dir, processItem, limit: 5, progress: quiet });
  assert.deepEqual([r.processed, r.resumed, r.summary.n], [5, 0, 5]);
  r = await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: dir, processItem, progress: quiet });
  assert.deepEqual([r.processed, r.resumed, r.summary.n], [18, 5, 23]);
  assert.equal(seen.length, 23);
  assert.equal(new Set(seen).size, 23);

  const failing = async (item) => { if (item.value === 2) throw new Error('decode failed'); return processFake(item); };
  const other = path.join(tempDir(), 'run');
  await assert.rejects(runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: other, processItem: failing, progress: quiet }), /decode failed/);
  assert.equal((await readRecords(other)).size, 2);
});

test('merge refuses other settings and conflicting records', async () => {
  const base = tempDir();
  const a = path.join(base, 'a');
  const b = path.join(base, 'b');
  await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: a, limit: 3, processItem: processFake, progress: quiet });
  await runEvaluation({ kind: fakeKind, items: fakeItems, settings: { ...fakeSettings, model: 'other-sha' }, outDir: b, limit: 3, processItem: processFake, progress: quiet });
  await assert.rejects(mergeRuns({ dirs: [a, b], outDir: path.join(base, 'm1'), kind: fakeKind }), /other settings \(model: "other-sha" vs "fake-sha"\)/);

  const c = path.join(base, 'c');
  await runEvaluation({ kind: fakeKind, items: fakeItems, settings: fakeSettings, outDir: c, limit: 3, processItem: async () => ({ score: 9, hit: true }), progress: quiet });
  await assert.rejects(mergeRuns({ dirs: [a, c], outDir: path.join(base, 'm2'), kind: fakeKind }), /img_000.png has different records in .*a and .*c/);
  // The same records twice are fine.
  const same = await mergeRuns({ dirs: [a, a], outDir: path.join(base, 'm3'), kind: fakeKind });
  assert.equal(same.records, 3);
});

test('eval CLI: merge splits folders from options; user mistakes are one line', () => {
  assert.deepEqual(splitMergeArgv(['s1', '--out', 'm', 's2']), { dirs: ['s1', 's2'], rest: ['--out', 'm'] });
  const dir = tempDir();
  for (const [args, status, pattern] of [
    [['eval', 'nonsense'], 2, /unknown evaluation "nonsense"/],
    [['eval', 'merge', '--out', path.join(dir, 'm')], 2, /give the run folders to merge/],
    [['eval', 'merge', dir, '--out', path.join(dir, 'm')], 1, /is not a run folder \(no run.json\)/],
  ]) {
    const r = runCli(args);
    assert.equal(r.status, status, r.stderr);
    assert.match(r.stderr, pattern);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
  const help = runCli(['eval', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /merge +combine the run folders/);
});

test('deterministic JSON sorts keys at every level and writes typed arrays as arrays', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: Float32Array.from([0.5]), c: [{ z: 1, y: 2 }] } }),
    '{"a":{"c":[{"y":2,"z":1}],"d":[0.5]},"b":1}');
});

// --- reports ---------------------------------------------------------------------------

test('tables: fixed decimals, numeric columns right-aligned, CSV quoting', () => {
  const rows = [['rollout, v2', 53.12345, -0.0001], ['a|b "x"', null, 2]];
  assert.equal(markdownTable(['method', 'AUC', 'delta'], rows, { precision: 2 }), [
    '| method | AUC | delta |',
    '| --- | ---: | ---: |',
    '| rollout, v2 | 53.12 | 0.00 |',
    '| a\\|b "x" |  | 2.00 |',
  ].join('\n'));
  assert.equal(csvTable(['method', 'AUC', 'delta'], rows, { precision: [null, 3, 1] }),
    'method,AUC,delta\n"rollout, v2",53.123,0.0\n"a|b ""x""",,2.0\n');
  assert.equal(formatCell(1 / 3), String(1 / 3));
  assert.equal(formatCell(NaN, 2), 'NaN');
  assert.throws(() => csvTable(['a', 'b'], [[1]]), /row 1 has 1 cells, the header 2/);
});

// Tags balance, attributes are quoted, and text is escaped: enough to know any SVG
// reader will parse it.
function checkWellFormed(svg) {
  const stack = [];
  const tags = svg.match(/<[^>]*>/g);
  for (const tag of tags) {
    assert.match(tag, /^<\/?[a-z]+(\s+[a-z][a-z0-9:-]*="[^"<>]*")*\s*\/?>$/i, `malformed tag ${tag}`);
    const name = /^<\/?([a-z]+)/i.exec(tag)[1];
    if (tag.startsWith('</')) assert.equal(stack.pop(), name, `unbalanced </${name}>`);
    else if (!tag.endsWith('/>')) stack.push(name);
  }
  assert.deepEqual(stack, []);
  assert.doesNotMatch(svg.replace(/<[^>]*>/g, ''), /[<>]|&(?!(amp|lt|gt|quot);)/);
  return tags;
}

test('the SVG line chart is well-formed: axes, ticks, one line and legend entry per series', () => {
  const svg = lineChartSvg({
    title: 'AUC <pos> & "neg"', xLabel: 'pixels removed (%)', yLabel: 'top-1 accuracy (%)',
    x: [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    series: [
      { name: 'transformer_attribution', y: [80, 60, 45, 33, 25, 18, 12, 8, 5, 3] },
      { name: 'rollout', y: [80, 70, 61, NaN, 44, 37, 30, 24, 19, 15] },
    ],
  });
  const tags = checkWellFormed(svg);
  assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.match(svg, /AUC &lt;pos&gt; &amp; &quot;neg&quot;/);
  // Axis frame + one line for the first series + two around the gap of the second.
  assert.equal(tags.filter((t) => t.startsWith('<polyline')).length, 4);
  assert.equal(tags.filter((t) => t.startsWith('<circle')).length, 19);
  for (const label of ['>0<', '>90<', '>80<', '>transformer_attribution<', '>rollout<']) assert.ok(svg.includes(label), label);
  assert.throws(() => lineChartSvg({ x: [0, 1], series: [{ name: 'a', y: [1] }] }), /needs a name and 2 y values/);
  assert.deepEqual(niceTicks(0, 90, 10), [0, 10, 20, 30, 40, 50, 60, 70, 80, 90]);
  assert.deepEqual(niceTicks(0, 0.37), [0, 0.1, 0.2, 0.3, 0.4]);
});

// --- progress --------------------------------------------------------------------------

test('progress: rate and ETA from this session only, durations, the line', () => {
  assert.deepEqual(estimate({ processed: 0, elapsedMs: 5000, remaining: 10 }), { rate: null, etaSeconds: null });
  const { rate, etaSeconds } = estimate({ processed: 19, elapsedMs: 10_000, remaining: 365 });
  assert.equal(rate, 1.9);
  assert.ok(Math.abs(etaSeconds - 192.105) < 1e-3);
  assert.deepEqual([formatDuration(9.4), formatDuration(192), formatDuration(3725), formatDuration(null)], ['9s', '3m12s', '1h02m', '--']);
  assert.equal(formatProgressLine({ done: 123, total: 500, rate: 1.9, etaSeconds: 192, current: 'a.png' }),
    '[123/500]  24.6% 1.9 img/s ETA 3m12s  a.png');
  assert.equal(formatProgressLine({ done: 3, total: 500, rate: null, etaSeconds: null }), '[  3/500]   0.6% -- img/s ETA --');
  // Slow runs read in seconds per photo, never "0.0 img/s".
  assert.deepEqual([1.94, 23.4, 0.05, 0.4, 1 / 150].map((r) => formatRate(r)), ['1.9 img/s', '23 img/s', '20 s/img', '2.5 s/img', '2m30s/img']);
  // Each evaluation counts its own items: reviews, mosaics, sentences.
  assert.deepEqual([1.94, 0.05].map((r) => formatRate(r, 'review')), ['1.9 review/s', '20 s/review']);
  assert.equal(formatProgressLine({ done: 3, total: 500, rate: null, etaSeconds: null, unit: 'mosaic' }), '[  3/500]   0.6% -- mosaic/s ETA --');
});

test('progress on a terminal: the ETA counts down within a slow item', () => {
  let clock = 0;
  let ticker = null;
  const shown = [];
  const stream = { isTTY: true, write: (s) => shown.push(s.replace(/^\r/, '').trimEnd()) };
  const bar = createProgress({ total: 10, stream, now: () => clock, tick: (fn) => { ticker = fn; return () => { ticker = null; }; } });
  bar.begin('a.png');
  clock += 20_000;
  bar.step(); // 20 s per photo: 9 left, 3m00s
  bar.begin('b.png');
  assert.equal(shown.at(-1), '[ 1/10]  10.0% 20 s/img ETA 3m00s  b.png');
  clock += 5000;
  ticker();
  assert.equal(shown.at(-1), '[ 1/10]  10.0% 20 s/img ETA 2m55s  b.png', 'the ETA moved during the photo');
  clock += 60_000;
  ticker();
  assert.equal(shown.at(-1), '[ 1/10]  10.0% 20 s/img ETA 2m40s  b.png', 'never below the photos after this one');
  bar.end();
  assert.equal(ticker, null, 'the timer stops with the run');
});

test('progress in a log: a line per ~5% (or 30 s), resumed items excluded from the rate', () => {
  let clock = 0;
  const lines = [];
  const stream = { isTTY: false, write: (s) => lines.push(s) };
  const bar = createProgress({ total: 100, resumed: 50, stream, now: () => clock });
  for (let i = 0; i < 50; i++) {
    bar.begin(`img${i}`);
    clock += 2000; // 0.5 img/s in this session
    bar.step();
  }
  bar.end();
  assert.equal(lines.length, 10);
  assert.equal(lines[0], '[ 55/100]  55.0% 2.0 s/img ETA 1m30s\n');
  assert.equal(lines.at(-1), '[100/100] 100.0% 2.0 s/img ETA 0s\n');

  const slow = [];
  clock = 0;
  const bar2 = createProgress({ total: 1000, stream: { write: (s) => slow.push(s) }, now: () => clock });
  for (let i = 0; i < 5; i++) { clock += 10_000; bar2.step(); }
  assert.equal(slow.length, 1, 'one line per 30 s when items are slow');

  const silent = [];
  const quietBar = createProgress({ total: 3, quiet: true, stream: { write: (s) => silent.push(s) } });
  quietBar.begin('x'); quietBar.step(); quietBar.end();
  assert.deepEqual(silent, []);

  const tty = [];
  const ttyBar = createProgress({ total: 2, stream: { isTTY: true, write: (s) => tty.push(s) }, now: () => 0 });
  ttyBar.begin('first.png');
  ttyBar.step();
  ttyBar.end();
  assert.ok(tty.every((s, i) => s.startsWith('\r') || (i === tty.length - 1 && s === '\n')));
  assert.match(tty[0], /first\.png$/);
});
