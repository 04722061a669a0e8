// runtime/core-text.js over the WebAssembly build: the tokenizer against Hugging Face's
// BertTokenizer on every case of golden/text/tokenizer_cases.json (uncased and cased), its
// offsets as JavaScript slices them, hostile strings, word maps; text maps through
// computeMaps with kind 'text'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadTextCore } from '../../runtime/core-text.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shared = process.env.VITREL_SHARED_DIR ?? path.join(root, '..', 'shared');
const casesFile = path.join(shared, 'reference/golden/text/tokenizer_cases.json');
const vocabFile = path.join(shared, 'models/bert-mini-sst2-movies/vocab.txt');
const skip = existsSync(casesFile) && existsSync(vocabFile) ? false : `text golden data not found in ${shared} (set VITREL_SHARED_DIR)`;

const core = await loadTextCore();
const config = { do_lower_case: true, strip_accents: null, tokenize_chinese_chars: true, cls_token: '[CLS]', sep_token: '[SEP]', unk_token: '[UNK]', pad_token: '[PAD]' };

function checkOffsets(text, e, maxTokens) {
  const S = e.ids.length;
  assert.ok(S >= 2 && S <= maxTokens);
  assert.deepEqual([e.tokens.length, e.offsets.length, e.wordIndex.length], [S, S, S]);
  assert.deepEqual([e.offsets[0], e.offsets[S - 1], e.wordIndex[0], e.wordIndex[S - 1]], [[0, 0], [0, 0], -1, -1]);
  assert.equal(e.truncation.textLength, text.length);
  let last = 0;
  for (let i = 1; i < S - 1; i++) {
    const [start, end] = e.offsets[i];
    assert.ok(start >= last && start < end && end <= e.truncation.textEnd, `token ${i} [${start}, ${end})`);
    last = start;
    const [ws, we] = e.wordOffsets[e.wordIndex[i]];
    assert.ok(ws <= start && end <= we);
  }
  assert.equal(e.words.length, e.wordOffsets.length);
  e.words.forEach((w, k) => assert.equal(w, text.slice(...e.wordOffsets[k])));
}

test('the tokenizer gives Hugging Face\'s ids on every golden case, uncased and cased', { skip }, () => {
  const { cases } = JSON.parse(readFileSync(casesFile, 'utf8'));
  const vocab = readFileSync(vocabFile);
  const uncased = core.textTokenizer(vocab, config);
  const cased = core.textTokenizer(vocab, { ...config, do_lower_case: false });
  try {
    assert.equal(uncased.vocabSize, 30522);
    assert.ok(cases.length >= 16);
    for (const c of cases) {
      const u = uncased.encode(c.text, 512);
      assert.deepEqual(u.ids, c.uncased.ids, c.text);
      assert.deepEqual(u.tokens, c.uncased.tokens, c.text);
      checkOffsets(c.text, u, 512);
      const k = cased.encode(c.text, 512);
      assert.deepEqual(k.ids, c.do_lower_case_false.ids, c.text);
      checkOffsets(c.text, k, 512);
    }
  } finally {
    uncased.free();
    cased.free();
  }
});

test('offsets are JavaScript string indices: accents, surrogate pairs, lone surrogates', { skip }, () => {
  const tok = core.textTokenizer(readFileSync(vocabFile, 'utf8'), config);
  try {
    const text = 'Caf\u0065\u0301 😀 \ud800broken\udc00 end';
    const e = tok.encode(text, 512);
    checkOffsets(text, e, 512);
    assert.deepEqual(e.words, ['Cafe\u0301', '😀', 'broken', 'end']);  // lone surrogates: U+FFFD, dropped
    assert.deepEqual(e.tokens, ['[CLS]', 'cafe', '[UNK]', 'broken', 'end', '[SEP]']);
    const cut = tok.encode('one two three four five', 5);
    assert.deepEqual(cut.truncation, { droppedTokens: 2, textEnd: 13, textLength: 23 });
    assert.deepEqual(cut.words, ['one', 'two', 'three']);
    const empty = tok.encode(' \u200b\t', 512);
    assert.deepEqual([empty.ids, empty.words], [[101, 102], []]);
  } finally {
    tok.free();
  }
});

test('word maps take the max of each word\'s pieces, without specials', { skip }, () => {
  const tok = core.textTokenizer(readFileSync(vocabFile), config);
  try {
    const e = tok.encode('the unimaginative 😀', 512);
    const map = Float32Array.from(e.ids, (_, i) => (i % 2 ? i : -i));
    map[0] = 100;
    const words = tok.wordMap({ data: map, shape: [map.length] }, e);
    assert.equal(words.length, 3);
    assert.equal(words[0], map[1]);
    assert.equal(words[1], Math.max(...map.slice(2, e.ids.length - 2)));
    assert.ok(Number.isNaN(words[2]));
    assert.throws(() => tok.wordMap(new Float32Array(2), e), { name: 'InputError', message: /word map: the token map has 2 values/ });
  } finally {
    tok.free();
  }
});

test('hostile vocabularies and configs give one-line errors naming the field', () => {
  assert.throws(() => core.textTokenizer('a\nb\na\n', config), { name: 'InputError', message: 'vocab: line 3 repeats the token "a" of line 1' });
  assert.throws(() => core.textTokenizer('[CLS]\r\n', config), { name: 'InputError', message: /vocab: line 1 ends in a carriage return/ });
  assert.throws(() => core.textTokenizer('[SEP]\n[UNK]', config), { name: 'InputError', message: 'tokenizer.cls_token: "[CLS]" is not in the vocabulary' });
  assert.throws(() => core.textTokenizer('[CLS]\n[SEP]\n[UNK]', { ...config, do_lower_case: 'yes' }), { name: 'InputError', message: 'tokenizer.do_lower_case must be true or false' });
  const tok = core.textTokenizer('[CLS]\n[SEP]\n[UNK]\nok', config);
  assert.throws(() => tok.encode('ok', 1), { name: 'InputError', message: /max_tokens: 1/ });
  tok.free();
  assert.throws(() => tok.encode('ok', 8), /already freed/);
});

test('text maps: every method as a length-S map, start layer last, contrast of [S] maps', () => {
  const [B, H, S] = [2, 2, 5];
  const t = (shape, f) => ({ shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => f(i)) });
  const attn = t([B, H, S, S], (i) => 1 + ((i * 7) % 5));
  for (let r = 0; r < attn.data.length; r += S) {
    const sum = attn.data.slice(r, r + S).reduce((a, b) => a + b, 0);
    for (let j = 0; j < S; j++) attn.data[r + j] /= sum;
  }
  const tensors = {
    attn, attn_grad: t([B, H, S, S], (i) => Math.sin(i)), attn_rel: t([B, H, S, S], (i) => Math.cos(i * 0.7)),
    attn_rel_classic_last: t([H, S, S], (i) => Math.sin(i * 1.3)), input_rel_classic: t([S], (i) => i - 2),
    input_rel_attnlrp: t([S], (i) => i), input_rel_cp_lrp: t([S], (i) => -i), attr: t([B, H, S, S], (i) => Math.sin(i * 0.3)),
  };
  const maps = core.computeMaps(tensors, { kind: 'text' });
  assert.deepEqual(Object.keys(maps), [...core.methodIds]);
  for (const [id, m] of Object.entries(maps)) assert.deepEqual([id, m.shape, m.data.length], [id, [S], S]);
  assert.equal(maps.lrp_full.data[0], 0);
  assert.deepEqual([...maps.attnlrp.data], [0, 1, 2, 3, 4]);
  const ta = maps.transformer_attribution.data;
  assert.equal(ta[0], Math.min(...ta));
  const last = core.computeMaps(tensors, { kind: 'text', methods: ['transformer_attribution'], startLayer: 'last' });
  const one = core.computeMaps(tensors, { kind: 'text', methods: ['transformer_attribution'], startLayer: B - 1 });
  assert.deepEqual(last, one);
  assert.notDeepEqual([...last.transformer_attribution.data], [...ta]);
  assert.equal(core.relevanceRow('raw_attention', tensors, { kind: 'text', queryToken: 2 }).length, S);
  const c = core.contrast('transformer_attribution', maps.transformer_attribution, maps.ablation_no_grad);
  assert.deepEqual(c.shape, [S]);
  assert.throws(() => core.computeMaps(tensors, { kind: 'photo' }), /options.kind must be 'image' or 'text'/);
  assert.throws(() => core.computeMaps({ attn }, { kind: 'text', pool: 'avg' }), { name: 'InputError', message: /pool avg is not a text model's/ });
});
