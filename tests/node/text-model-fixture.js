// Test support: a text model's folder as the exporter writes it (docs/architecture.md, "Text
// models": metadata, vocabulary, index.json), its graph a file that is not ONNX at all, for
// the checks that must answer before any graph opens. → the folder.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const TEXT_MODEL_NAME = 'tiny-text';

export function writeTextModel(dir) {
  const name = TEXT_MODEL_NAME;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `${name}.onnx`), 'not an ONNX graph');
  writeFileSync(path.join(dir, `${name}.vocab.txt`), '[PAD]\n[UNK]\n[CLS]\n[SEP]\ngood\nbad\n');
  writeFileSync(path.join(dir, `${name}.json`), JSON.stringify({
    format: 'vit-relevance-explainer', format_version: 1, kind: 'text', name, onnx: `${name}.onnx`,
    architecture: { family: 'bert', blocks: 2, heads: 2, embed_dim: 8, max_tokens: 16, num_classes: 2, vocab_size: 6 },
    tokenizer: { vocab: `${name}.vocab.txt`, do_lower_case: true, strip_accents: null, tokenize_chinese_chars: true,
      cls_token: '[CLS]', sep_token: '[SEP]', unk_token: '[UNK]', pad_token: '[PAD]' },
    labels: ['negative', 'positive'],
    inputs: { input_ids: [1, 'S'], target: ['K', 2], token_relevance: [] },
    outputs: { logits: [1, 2], attn: [2, 2, 'S', 'S'], attn_grad: ['K', 2, 2, 'S', 'S'], attn_rel: ['K', 2, 2, 'S', 'S'],
      attn_rel_classic_last: ['K', 2, 'S', 'S'], input_rel_classic: ['K', 'S'] },
  }));
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ models: [{ name, onnx: `${name}.onnx`, metadata: `${name}.json`, kind: 'text', vocab: `${name}.vocab.txt` }] }));
  return dir;
}
