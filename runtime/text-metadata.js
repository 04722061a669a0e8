// @ts-check
// A text model's metadata (`kind: "text"`, a BERT-family classifier; docs/architecture.md,
// "Text models"): its checks and the shapes its explainer graph's tensors take for a text
// of S tokens. Environment-neutral. Only the text code and validateMetadata load it: the
// photo path's scripts ship without it (runtime/model-kind.js is what they need of texts).

// The kind of model (runtime/model-kind.js), for the text code that imports it from here.
export { MODEL_KINDS, modelKind, kindMismatch } from './model-kind.js';

// The text graph's inputs: input_ids int64 [1,S] in place of the pixels, and the switch of
// input_rel_classic named for what it computes (the others as for images).
export const TEXT_INPUTS = ['input_ids', 'target', 'token_relevance'];

// Each switch input of a text graph and the output it computes (1 exactly when fetched).
export const TEXT_SWITCHES = /* @__PURE__ */ Object.freeze({
  token_relevance: 'input_rel_classic',
  attnlrp_relevance: 'input_rel_attnlrp',
  cp_lrp_relevance: 'input_rel_cp_lrp',
});

const ARCHITECTURE_FIELDS = ['blocks', 'heads', 'embed_dim', 'max_tokens', 'num_classes', 'vocab_size'];
const TOKENIZER_STRINGS = ['vocab', 'cls_token', 'sep_token', 'unk_token', 'pad_token'];

const isPositiveInt = (v) => Number.isInteger(v) && v > 0;

// The problems of a text model's metadata (its format and outputs are checked by the caller,
// runtime/metadata.js validateMetadata, for both kinds).
export function textMetadataProblems(metadata) {
  const problems = [];
  const arch = metadata.architecture ?? {};
  for (const f of ARCHITECTURE_FIELDS) if (!isPositiveInt(arch[f])) problems.push(`"architecture.${f}" must be a positive integer`);
  if (isPositiveInt(arch.max_tokens) && arch.max_tokens < 3) problems.push('"architecture.max_tokens" must be at least 3 ([CLS], a word, [SEP])');
  const tok = metadata.tokenizer;
  if (!tok || typeof tok !== 'object') {
    problems.push('"tokenizer" is missing');
  } else {
    for (const f of TOKENIZER_STRINGS) if (typeof tok[f] !== 'string' || !tok[f]) problems.push(`"tokenizer.${f}" must be a non-empty string`);
    if (typeof tok.do_lower_case !== 'boolean') problems.push('"tokenizer.do_lower_case" must be true or false');
    // The vocabulary sits beside the metadata: a bare file name, never a path.
    if (typeof tok.vocab === 'string' && /[/\\]|^\.\.?$/.test(tok.vocab)) problems.push(`"tokenizer.vocab" ${JSON.stringify(tok.vocab)} must be a file name beside the metadata, not a path`);
  }
  return problems;
}

// The shapes the runtime needs: S is the text's own, not the metadata's.
export function textDims(metadata) {
  const a = metadata.architecture;
  return { blocks: a.blocks, heads: a.heads, classes: a.num_classes, maxTokens: a.max_tokens };
}

// Each output's shape for K target rows of a text of S tokens.
export const textShapes = ({ blocks: B, heads: h, classes: C }, K, S) => ({
  logits: [1, C],
  attn: [B, h, S, S],
  attn_grad: [K, B, h, S, S],
  attn_rel: [K, B, h, S, S],
  attn_rel_classic_last: [K, h, S, S],
  input_rel_classic: [K, S],
  input_rel_attnlrp: [K, S],
  input_rel_cp_lrp: [K, S],
});
