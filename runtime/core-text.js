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
// It is not on loadCore's core: the photo path's scripts (the element's, the API's, the
// Worker's) ship without it. A text model's code adds it where the model opens:
//   coreTokenizer(core, vocab, config) → core.textTokenizer(vocab, config) over any loaded core
//   loadTextCore(options) → loadCore's core with textTokenizer on it
// computeMaps / relevanceRow with { kind: 'text' } are the core's own (runtime/core-options.js).
import { heapHelpers } from './core-heap.js';
import { loadCoreWith } from './core.js';

/** loadCore's core with the tokenizer. @param {Parameters<typeof import('./core.js').loadCore>[0]} [options] */
export const loadTextCore = (options) => loadCoreWith(textApi, options);

/** The tokenizer of any loaded core (one from loadTextCore keeps its own functions). */
export const coreTokenizer = (core, vocab, config) => (core.textTokenizer ? core : core.withApi(textApi)).textTokenizer(vocab, config);

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
