// @ts-check
// One open text model with the core, and its texts (beside runtime/photo-cache.js, which
// does the same for photos): a text is checked (runtime/text-input.js), tokenized by the
// core's BERT tokenizer (`[CLS]` w1 … wn `[SEP]`, cut at the model's positions, with a notice
// saying how much), then explained exactly as a photo is: the photo cache runs the graph,
// keep each class's tensors and compute every method's map, over tokens here ({ shape: [S],
// data }). Each map also gets its word-level map (a word scores the max of its pieces,
// specials dropped: METHODS.md, "Word-level scores"). Environment-neutral: the Node API
// and the Worker share it.
import { createPhotoCache } from './photo-cache.js';
import { checkText } from './text-input.js';
import { textDims } from './text-metadata.js';
import { coreTokenizer } from './core-text.js';

// A text's tokens as the API and maps.json give them.
/** @typedef {import('./explain-types.js').TextFields} TokenizedText */

// The sentence for a text cut at the model's positions, or null when nothing was cut.
export function truncationNotice(tokenized, maxTokens) {
  const cut = tokenized.truncated;
  if (!cut) return null;
  const left = tokenized.text.length - cut.at;
  return `the text is longer than the model reads (${maxTokens} tokens with [CLS] and [SEP]): its last ${cut.tokens} `
    + `token${cut.tokens === 1 ? '' : 's'} (${left} character${left === 1 ? '' : 's'}, from character ${cut.at} on) are cut and not explained`;
}

// tokenizer: the core's (core.textTokenizer), built from the model's vocabulary.
// → the text's tokens, and the core's encoding (for its word maps).
export function tokenizeText(tokenizer, text, maxTokens, where) {
  checkText(text, where);
  const encoding = tokenizer.encode(text, maxTokens);
  if (!encoding.words.length) throw new Error(`${where} has no word the model reads: BERT's tokenizer leaves nothing of it`);
  const cut = encoding.truncation;
  /** @type {TokenizedText} */
  const tokenized = {
    text,
    tokens: encoding.tokens,
    ids: encoding.ids,
    offsets: encoding.offsets,
    words: encoding.words,
    truncated: cut.droppedTokens > 0 ? { tokens: cut.droppedTokens, at: cut.textEnd } : null,
  };
  return { tokenized, encoding };
}

// The core's tokenizer of a text model: vocab, its vocabulary file's text (the metadata's
// tokenizer.vocab), which must hold one token per row of the model's embeddings.
export function textTokenizer(core, vocab, metadata) {
  const tokenizer = coreTokenizer(core, vocab, metadata.tokenizer);
  const rows = metadata.architecture.vocab_size;
  if (tokenizer.vocabSize !== rows) {
    tokenizer.free();
    throw new Error(`vocabulary ${metadata.tokenizer.vocab} has ${tokenizer.vocabSize} tokens, but the model's embeddings have ${rows} rows (architecture.vocab_size): they do not belong together`);
  }
  return tokenizer;
}

// tokenizer: textTokenizer's, which close() frees.
export function createTextCache({ explainer, core, tokenizer, tensorCacheBytes = undefined }) {
  const { metadata } = explainer;
  const { maxTokens } = textDims(metadata);
  const photos = createPhotoCache({ explainer, core, tensorCacheBytes });

  // Each method's word map beside its token map.
  const withWordMaps = (doc, results) => results.map((r) => {
    const wordMaps = {};
    for (const [m, map] of Object.entries(r.maps)) wordMaps[m] = tokenizer.wordMap(map, doc.encoding);
    return { ...r, wordMaps };
  });

  return {
    metadata,
    explainer,
    maxTokens,
    // A text → a document the graph runs on (its ids are the "pixels"), with its tokens
    // (`tokenized`) and its truncation notice; one line naming `where` when it cannot be explained.
    openText(text, where = 'the text') {
      const { tokenized, encoding } = tokenizeText(tokenizer, text, maxTokens, where);
      const doc = photos.pixelsPhoto(BigInt64Array.from(tokenized.ids, BigInt));
      return Object.assign(doc, { tokenized, encoding, notice: truncationNotice(tokenized, maxTokens) });
    },
    predict: (doc, options) => photos.predict(doc, options),
    top5: (doc) => photos.top5(doc),
    // Maps of `targets` for `methods` (runtime/photo-cache.js explain()), with word maps.
    async explain(doc, targets, options) {
      const out = await photos.explain(doc, targets, options);
      return { ...out, results: withWordMaps(doc, out.results) };
    },
    closePhoto: (doc) => photos.closePhoto(doc),
    get graphRuns() { return photos.graphRuns; },
    close: () => {
      tokenizer.free?.();
      return photos.close();
    },
  };
}
