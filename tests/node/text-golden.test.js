// The text methods end to end against the official BERT code (METHODS.md, "Text (BERT)",
// golden/text/golden_text.npz): the default text model's explainer graph (npm run build
// exports it into build/models) runs in onnxruntime-web on the three golden sentences,
// tokenized by the core; the core's text maps of both classes, both start layers, are
// compared with METHODS.md's acceptance.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { loadCore } from '../../runtime/core.js';
import { pearson, root } from './maps-support.js';

const shared = process.env.VITREL_SHARED_DIR ?? path.join(root, '..', 'shared');
const goldenDir = path.join(shared, 'reference/golden/text');
const models = path.join(root, 'build', 'models');
const NAME = 'bert-mini-sst2-movies';
const metadataFile = path.join(models, `${NAME}.json`);
const skip = !existsSync(path.join(goldenDir, 'golden_text.npz')) ? `text golden data not found in ${shared} (set VITREL_SHARED_DIR)`
  : !existsSync(metadataFile) ? `${metadataFile} not built (npm run build exports the default text model)` : false;

// Acceptance (METHODS.md): the proposed method Pearson >= 0.99 and the same top token;
// attention- and gradient-only methods and partial_lrp >= 0.999.
const ACCEPT = {
  transformer_attribution: { golden: 'transformer_attribution', r: 0.99, top: true },
  attention_rollout: { golden: 'attention_rollout', r: 0.999 },
  raw_attention: { golden: 'raw_attention', r: 0.999 },
  gradcam: { golden: 'gradcam', r: 0.999 },
  partial_lrp: { golden: 'partial_lrp', r: 0.999 },
};

// The npz as { key: number[] } through numpy (the golden file's own reader); NaN → null.
function readNpz(file) {
  const code = 'import json, sys, numpy as np\nz = np.load(sys.argv[1])\n' +
    'print(json.dumps({k: [None if v != v else v for v in z[k].ravel().tolist()] for k in z.files}))';
  const r = spawnSync('/usr/bin/python3', ['-c', code, file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const argmax = (v) => v.reduce((best, x, i) => (x > v[best] ? i : best), 0);
// Row k of a [K, ...rest] output as a core tensor.
const row = (t, k) => {
  const rest = t.dims.slice(1);
  const n = rest.reduce((a, b) => a * b, 1);
  return { shape: rest, data: t.data.subarray(k * n, (k + 1) * n) };
};

test('every text method matches the official BERT code on the golden sentences, both classes, both start layers', { skip, timeout: 600_000 }, async () => {
  const core = await loadCore();
  const metadata = JSON.parse(readFileSync(metadataFile, 'utf8'));
  const { blocks, max_tokens: maxTokens, num_classes: C } = metadata.architecture;
  const tok = core.textTokenizer(readFileSync(path.join(models, metadata.tokenizer.vocab)), metadata.tokenizer);
  const session = await ort.InferenceSession.create(readFileSync(path.join(models, metadata.onnx)));
  const golden = readNpz(path.join(goldenDir, 'golden_text.npz'));
  const sentences = JSON.parse(readFileSync(path.join(goldenDir, 'inputs.json'), 'utf8'));
  try {
    for (const { name, text } of sentences) {
      const enc = tok.encode(text, maxTokens);
      assert.deepEqual(enc.ids, golden[`${name}/ids`], `${name}: ids`);
      const S = enc.ids.length;
      const target = new Float32Array(C * C);
      for (let k = 0; k < C; k++) target[k * C + k] = 1;
      const scalar = (v) => new ort.Tensor('float32', Float32Array.of(v), []);
      const out = await session.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(enc.ids, BigInt), [1, S]),
        target: new ort.Tensor('float32', target, [C, C]),
        token_relevance: scalar(1), attnlrp_relevance: scalar(0), cp_lrp_relevance: scalar(0),
      });
      const logits = [...out.logits.data];
      golden[`${name}/logits`].forEach((v, i) => assert.ok(Math.abs(logits[i] - v) <= 1e-4 * Math.max(1, Math.abs(v)), `${name}: logit ${i} ${logits[i]} vs ${v}`));
      const attn = { shape: out.attn.dims, data: out.attn.data };
      for (let k = 0; k < C; k++) {
        const tensors = {
          attn, attn_grad: row(out.attn_grad, k), attn_rel: row(out.attn_rel, k),
          attn_rel_classic_last: row(out.attn_rel_classic_last, k), input_rel_classic: row(out.input_rel_classic, k),
        };
        const label = `${name}, class ${k}`;
        const maps = core.computeMaps(tensors, { kind: 'text', methods: [...Object.keys(ACCEPT), 'lrp_full'] });
        const last = core.computeMaps(tensors, { kind: 'text', methods: ['transformer_attribution'], startLayer: 'last' });
        const checks = [...Object.entries(ACCEPT).map(([id, a]) => [id, maps[id].data, a]),
          ['transformer_attribution (last)', last.transformer_attribution.data, { ...ACCEPT.transformer_attribution, golden: 'transformer_attribution_last_block' }]];
        for (const [id, ours, a] of checks) {
          const ref = golden[`${name}/${k}/${a.golden}`];
          assert.equal(ours.length, S, `${label}: ${id} length`);
          if (ref.includes(null)) {
            // The official GradCAM divides by zero when every head weight is negative; we give zeros.
            assert.deepEqual([...ours], new Array(S).fill(0), `${label}: ${id} where the official code gives NaN`);
            continue;
          }
          const r = pearson(ours, ref);
          assert.ok(r >= a.r, `${label}: ${id} Pearson ${r} < ${a.r}`);
          if (a.top) assert.equal(argmax([...ours]), argmax(ref), `${label}: ${id} top token`);
        }
        // lrp_full by its rules (its numbers are not reproducible: METHODS.md): the graph's
        // classic relevance at the embeddings with the [CLS] entry set to 0.
        const lrp = maps.lrp_full.data;
        assert.equal(lrp[0], 0, `${label}: lrp_full [CLS]`);
        assert.deepEqual([...lrp.subarray(1)], [...tensors.input_rel_classic.data.subarray(1)], `${label}: lrp_full`);
        assert.equal(blocks, out.attn.dims[0]);
      }
    }
  } finally {
    tok.free();
    await session.release();
  }
});
