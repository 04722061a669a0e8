// @ts-check
// The text side of the core (runtime/core.js adds it to the same object): BERT's tokenizer
// (src/text/tokenizer.h) and what computeMaps needs to read a text's tensors.
//
//   const tok = core.textTokenizer(vocab, config)
//     vocab: the model's vocabulary file (<name>.vocab.txt) as a string or UTF-8 bytes;
//     config: metadata.tokenizer ({ do_lower_case, strip_accents, tokenize_chinese_chars,
//     cls_token, sep_token, unk_token, pad_token, mask_token? }; other keys ignored).
//   tok.encode(text, maxTokens) → { ids, tokens, offsets: [start, end][], wordIndex, words,
//     wordOffsets: [start, end][], truncation: { droppedTokens, textEnd, textLength } }
//     (offsets in UTF-16 code units of `text`; [0, 0] and word -1 for [CLS]/[SEP]; words as
//     typed, text.slice(start, end)). Exactly Hugging Face BertTokenizer's ids.
//   tok.wordMap(map, encoding) → Float32Array, one score per word: the max of its tokens',
//     [CLS]/[SEP]/[UNK]/[PAD] left out (NaN for an unknown word: no score)
//   tok.vocabSize, tok.idOf(token) → id or -1, tok.free()
//
// computeMaps / relevanceRow with { kind: 'text' }: S tokens, no grid (textLayout below);
// maps come back as { shape: [S], data }. startLayer 'last' = the last block (any kind).
import { heapHelpers } from './core-heap.js';

const utf8 = new TextEncoder();
const asBytes = (what, v) => {
  if (typeof v === 'string') return utf8.encode(v);  // a lone surrogate becomes U+FFFD
  if (v instanceof Uint8Array) return v;
  throw new TypeError(`${what} must be a string or a Uint8Array`);
};
const pairs = (starts, ends) => Array.from(starts, (s, i) => [s, ends[i]]);

/** The text functions of the core over the module M. */
export function textApi(M) {
  const { heapBytes, heapFloats, using, floatsOut } = heapHelpers(M);

  function textTokenizer(vocab, config = {}) {
    if (config === null || typeof config !== 'object') throw new TypeError('textTokenizer: config must be the metadata\'s tokenizer object');
    let native = using([heapBytes(asBytes('vocab', vocab))], (b) => new M.TextTokenizer(b, config));
    const live = () => {
      if (!native) throw new Error('this tokenizer was already freed');
      return native;
    };
    return {
      vocabSize: native.vocabSize(),
      idOf: (token) => live().idOf(String(token)),
      encode(text, maxTokens) {
        if (typeof text !== 'string') throw new TypeError('encode: text must be a string');
        if (!Number.isInteger(maxTokens)) throw new TypeError('encode: maxTokens must be an integer (the model\'s architecture.max_tokens)');
        const e = using([heapBytes(utf8.encode(text))], (b) => live().encode(b, maxTokens));
        const wordOffsets = pairs(e.wordStarts, e.wordEnds);
        return {
          ids: Array.from(e.ids),
          tokens: e.tokens,
          offsets: pairs(e.starts, e.ends),
          wordIndex: Array.from(e.wordIndex),
          words: wordOffsets.map(([s, end]) => text.slice(s, end)),
          wordOffsets,
          truncation: { droppedTokens: e.droppedTokens, textEnd: e.textEnd, textLength: e.textLength },
        };
      },
      wordMap(map, encoding) {
        const data = map?.data ?? map;
        if (!ArrayBuffer.isView(data) && !Array.isArray(data)) throw new TypeError('wordMap: map must be a Float32Array or { data, shape: [S] }');
        return using([heapFloats(data)], (f) => floatsOut(live().wordScores(f, encoding.ids, encoding.wordIndex, encoding.words.length)));
      },
      free() {
        native?.delete();
        native = null;
      },
    };
  }

  return { textTokenizer };
}

// The per-block tensors (their first dim is B) and the [S] tensors of a text.
const BLOCK_TENSORS = ['attn', 'attn_grad', 'attn_rel', 'attr'];
const TOKEN_VECTORS = ['input_rel_classic', 'input_rel_attnlrp', 'input_rel_cp_lrp'];

/**
 * options.startLayer as the bindings read it: 'last' is the last block of the tensors given.
 * @param {number | 'last' | undefined} startLayer @param {{ shapes: Record<string, number[]> }} t
 */
export function resolveStartLayer(startLayer, t) {
  if (startLayer !== 'last') return startLayer ?? 0;
  const blocks = BLOCK_TENSORS.map((id) => t.shapes[id]?.[0]).find((b) => b !== undefined);
  return blocks === undefined ? 0 : blocks - 1;
}

/**
 * The text layout of the bindings (wasm/options.cpp): S from the tensors given.
 * @param {{ shapes: Record<string, number[]>, tokens(): number | null }} t
 */
export function textLayout(t) {
  const S = t.tokens() ?? TOKEN_VECTORS.map((id) => t.shapes[id]?.[0]).find((s) => s !== undefined);
  if (S === undefined) throw new Error('no text tensor given: give at least one of attn, attn_grad, attn_rel, attn_rel_classic_last, attr, input_rel_classic, input_rel_attnlrp, input_rel_cp_lrp');
  return { gridRows: 0, gridCols: 0, specialTokens: 1, textTokens: S };
}
