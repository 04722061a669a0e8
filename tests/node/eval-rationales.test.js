// `vit-relevance eval rationales` (ERASER Movie Reviews, METHODS.md): the token-level F1
// against a case computed by hand, the word scores and top-k choice, the words of every
// test review aligned to the model's tokens exactly as the official pipeline aligns them
// (its character walk, written again here), and a real run of the command on the built
// text model: reports, resume, and shards merged into the bytes of one run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';
import { readVocab } from '../../runtime/node/open-text.js';
import { loadCore } from '../../runtime/core.js';
import { textTokenizer } from '../../runtime/text-cache.js';
import { humanWords, randomWords, tokenF1, tokenWords, topWords, wordScores, wordSpans, SPECIAL_TOKENS } from '../../eval/rationale-f1.js';
import { runCli, shared, tempDir } from './maps-support.js';

const movies = path.join(shared, 'text', 'movies');
const skipData = existsSync(path.join(movies, 'test.jsonl')) ? false : 'no ERASER movies data in the shared folder';
const skipModel = existsSync(DEFAULT_TEXT_MODEL) ? skipData : 'the default text model is not built: run `npm run build`';
const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

test('token F1 matches a case computed by hand (micro over words, macro over reviews)', () => {
  const s = tokenF1([
    { truth: [1, 2, 3, 4], pred: [2, 3, 9, 9] }, // tp 2 of 3 predicted, 4 true: p 2/3, r 1/2, F1 4/7
    { truth: [0], pred: [5, 6] }, // nothing right: 0
    { truth: [], pred: [] }, // neither: in no mean (metrics.py's instances are the keys of either)
  ]);
  close(s.micro.p, 2 / 5);
  close(s.micro.r, 2 / 5);
  close(s.micro.f1, 2 / 5);
  close(s.macro.p, 1 / 3);
  close(s.macro.r, 1 / 4);
  close(s.macro.f1, 2 / 7);
  const none = tokenF1([{ truth: [1], pred: [] }]);
  assert.deepEqual(none.macro, { p: 0, r: 0, f1: 0 });
});

test('word scores take the max of the pieces, drop the specials; top words clamp at 0, ties to the lower word; the random baseline is seeded by the review', () => {
  const text = 'unbelievably good ,  film';
  const tokens = ['[CLS]', 'un', '##believ', '##ably', 'good', ',', '[UNK]', '[SEP]'];
  const offsets = [[0, 0], [0, 2], [2, 8], [8, 12], [13, 17], [18, 19], [21, 25], [0, 0]];
  const owner = tokenWords(tokens, offsets, wordSpans(text));
  assert.deepEqual([...owner], [-1, 0, 0, 0, 1, 2, -1, -1]);
  const scores = wordScores(Float32Array.from([9, 0.1, 0.7, -2, 0.3, -1, 8, 7]), owner);
  assert.deepEqual([...scores].map((v) => Math.round(v * 10) / 10), [0.7, 0.3, -1]);
  assert.deepEqual(topWords(scores, 2), [0, 1]);
  assert.deepEqual(topWords(Float64Array.from([-1, 0.5, -3, 0, Number.NaN]), 5), [1, 0, 2, 3], 'negatives clamp to 0 and tie with 0 by index');
  const drawn = randomWords(100, 10, 'negR_900.txt');
  assert.deepEqual(drawn, randomWords(100, 10, 'negR_900.txt'), 'the same key draws the same words');
  assert.notDeepEqual(drawn, randomWords(100, 10, 'negR_901.txt'));
  assert.ok(new Set(drawn).size === 10 && drawn.every((w) => w >= 0 && w < 100));
  assert.deepEqual(randomWords(3, 80, 'x').sort(), [0, 1, 2], 'never more words than were read');
  assert.deepEqual(humanWords({ evidences: [[{ start_token: 3, end_token: 5 }], [{ start_token: 4, end_token: 7 }]] }), [3, 4, 5, 6]);
});

// The official pipeline's alignment (bert_pipeline.py, scores_per_word_from_scores_per_token):
// the pieces' characters (## dropped, specials dropped) laid end to end, word w taking the
// next len(w) of them; the walk stops at the first word starting past the last character.
// → for each token, the one word its characters fall in (-1 for the specials). One test
// review (posR_941, "don\u0012t") holds a control character that BERT's tokenizer drops:
// the official walk, counting it, would shift every later word by one character (its own
// check then stops the pipeline), so the words are counted as the tokenizer reads them.
function officialOwner(tokens, textWords) {
  const words = textWords.map((w) => w.replace(/\p{Cc}/gu, ''));
  const charToken = [];
  tokens.forEach((t, i) => {
    if (SPECIAL_TOKENS.includes(t)) return;
    for (let c = 0; c < t.replace(/^##/, '').length; c++) charToken.push(i);
  });
  const owner = new Array(tokens.length).fill(-1);
  let start = 0;
  for (const [w, word] of words.entries()) {
    if (start >= charToken.length) break;
    for (let c = start; c < Math.min(start + word.length, charToken.length); c++) {
      const t = charToken[c];
      assert.ok(owner[t] === -1 || owner[t] === w, `token ${tokens[t]} straddles words ${owner[t]} and ${w}`);
      owner[t] = w;
    }
    start += word.length;
  }
  return owner;
}

test('every test review\'s words get the model\'s pieces exactly as the official pipeline aligns them', { skip: skipModel, timeout: 600_000 }, async () => {
  const core = await loadCore();
  const metadata = JSON.parse(readFileSync(DEFAULT_TEXT_MODEL.replace(/\.onnx$/, '.json'), 'utf8'));
  const tokenizer = textTokenizer(core, await readVocab(DEFAULT_TEXT_MODEL, metadata), metadata);
  try {
    const lines = readFileSync(path.join(movies, 'test.jsonl'), 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 199);
    let truncated = 0;
    for (const line of lines) {
      const docid = JSON.parse(line).annotation_id;
      const text = readFileSync(path.join(movies, 'docs', docid), 'utf8');
      const e = tokenizer.encode(text, metadata.architecture.max_tokens);
      if (e.truncation.droppedTokens) truncated++;
      const ours = [...tokenWords(e.tokens, e.offsets, wordSpans(text))];
      assert.deepEqual(ours, officialOwner(e.tokens, text.split(/\s+/).filter(Boolean)), docid);
    }
    assert.ok(truncated > 0, 'some reviews are longer than the model reads');
  } finally {
    tokenizer.free();
  }
});

const readOut = (dir, name) => readFileSync(path.join(dir, name), 'utf8');

test('eval rationales on two real reviews: reports, F1 recomputed from its records, resume, shards merged byte for byte', { skip: skipModel, timeout: 900_000 }, () => {
  const methods = 'transformer_attribution,raw_attention,attnlrp';
  const base = ['eval', 'rationales', '--data', movies, '--methods', methods, '--quiet'];
  const one = tempDir('vitrel-rationales-');
  let r = runCli([...base, '--limit', '2', '--out', one]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /2 review\(s\) in .*accuracy \d+\.\d\d %/s);
  for (const f of ['run.json', 'records.jsonl', 'rationales.json', 'rationales.md', 'rationales.csv', 'rationales.svg']) assert.ok(existsSync(path.join(one, f)), f);
  const summary = JSON.parse(readOut(one, 'rationales.json'));
  assert.deepEqual(summary.methods, methods.split(','));
  assert.equal(summary.startLayers.transformer_attribution, 3, 'the last block, as the official pipeline');
  assert.equal(summary.startLayers.raw_attention, 0);
  assert.deepEqual(summary.ks, Array.from({ length: 16 }, (_, i) => 5 * (i + 1)));
  const records = readOut(one, 'records.jsonl').trim().split('\n').map((l) => JSON.parse(l).record);
  const ann = readFileSync(path.join(movies, 'test.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    .sort((a, b) => (a.annotation_id < b.annotation_id ? -1 : 1));
  records.forEach((rec, i) => {
    assert.deepEqual(rec.truth, humanWords(ann[i]));
    for (const m of summary.methods) assert.equal(new Set(rec.top[m]).size, 80, `${m}: 80 distinct words`);
    assert.equal(new Set(rec.random).size, 80, 'the random baseline: 80 distinct words');
  });
  assert.equal(summary.macroF1.random.length, 16, 'the random baseline beside the methods');
  for (const m of [...summary.methods, 'random']) {
    const k10 = tokenF1(records.map((rec) => ({ truth: rec.truth, pred: (m === 'random' ? rec.random : rec.top[m]).slice(0, 10) })));
    close(summary.macroF1[m][1], k10.macro.f1);
    close(summary.microF1[m][1], k10.micro.f1);
  }
  assert.match(readOut(one, 'rationales.svg'), /<svg[^]*transformer_attribution[^]*attnlrp[^]*<\/svg>/);
  assert.match(readOut(one, 'rationales.md'), /\| transformer_attribution \| \d\.\d{4} \|/);

  r = runCli([...base, '--limit', '2', '--out', one]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /0 review\(s\) explained/, 'everything resumed');

  const parts = [1, 2].map((i) => {
    const dir = tempDir(`vitrel-rationales-${i}-`);
    const s = runCli([...base, '--limit', '1', '--shard', `${i}/2`, '--out', dir]);
    assert.equal(s.status, 0, s.stderr);
    return dir;
  });
  const merged = path.join(tempDir('vitrel-rationales-m-'), 'all');
  r = runCli(['eval', 'merge', ...parts, '--out', merged]);
  assert.equal(r.status, 0, r.stderr);
  for (const f of readdirSync(one)) assert.equal(readOut(merged, f), readOut(one, f), f);
});

test('eval lists rationales; a wrong --data or --methods is one line before any review is explained', { skip: skipModel }, () => {
  assert.match(runCli(['eval', '--help']).stdout, /rationales +ERASER Movie Reviews/);
  const out = tempDir('vitrel-rationales-bad-');
  let r = runCli(['eval', 'rationales', '--data', path.join(out, 'nowhere'), '--out', out]);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /cannot read the ERASER split .*test\.jsonl: no such file/);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  r = runCli(['eval', 'rationales', '--data', movies, '--methods', 'attattr', '--out', out]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /attattr is not computed by one run of the text graph/);
  assert.ok(!existsSync(path.join(out, 'records.jsonl')), 'nothing recorded');
});
