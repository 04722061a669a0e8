// End to end on text: the built default text model (npm run build) explains the three golden
// sentences through the public Node API (vit-relevance/node: tokenizer, explainer graph in
// onnxruntime-web, the core's methods), and every method's map of both classes, at start
// layer 0 and 'last', matches the official BERT code's (golden_text.npz) with METHODS.md's
// acceptance: transformer attribution Pearson ≥ 0.99 and the same top token; attention- and
// gradient-only methods and partial LRP ≥ 0.999; lrp_full by its rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../../runtime/node/index.js';
import { goldenDir, pearson } from './maps-support.js';
import { readNpz } from './npz.js';

const textGolden = path.join(goldenDir, 'text');
const built = existsSync(DEFAULT_TEXT_MODEL);
const skip = !existsSync(path.join(textGolden, 'golden_text.npz')) ? 'no golden text data in the shared folder'
  : !built ? 'the default text model is not built: run `npm run build`' : false;

// golden key → [our method, start layer, least Pearson r]
const ACCEPTANCE = {
  transformer_attribution: ['transformer_attribution', 0, 0.99],
  transformer_attribution_last_block: ['transformer_attribution', 'last', 0.99],
  attention_rollout: ['attention_rollout', 0, 0.999],
  raw_attention: ['raw_attention', 0, 0.999],
  gradcam: ['gradcam', 0, 0.999],
  partial_lrp: ['partial_lrp', 0, 0.999],
};
const TOP_TOKEN_TOO = new Set(['transformer_attribution', 'transformer_attribution_last_block']);

const argmax = (d) => Array.prototype.reduce.call(d, (best, v, i) => (v > d[best] ? i : best), 0);
const constant = (d) => Array.prototype.every.call(d, (v) => v === d[0]);

test('the default text model reproduces the official BERT code on the golden sentences', { skip, timeout: 600_000 }, async () => {
  const golden = readNpz(path.join(textGolden, 'golden_text.npz'));
  const sentences = JSON.parse(readFileSync(path.join(textGolden, 'inputs.json'), 'utf8'));
  const explainer = await loadExplainer({ model: DEFAULT_TEXT_MODEL });
  assert.equal(explainer.kind, 'text');
  const methods = [...new Set(Object.values(ACCEPTANCE).map(([m]) => m)), 'lrp_full'];
  const seen = [];
  try {
    for (const { name, text } of sentences) {
      const opened = explainer.open(text);
      try {
        assert.deepEqual(opened.ids, golden.get(`${name}/ids`).data, `${name}: the tokenizer's ids`);
        const first = await opened.explain({ targets: [0, 1], methods, startLayer: 0 });
        const last = await opened.explain({ targets: [0, 1], methods: ['transformer_attribution'], startLayer: 'last' });
        const logits = golden.get(`${name}/logits`).data;
        first.targets.forEach((t, c) => {
          const prob = Math.exp(logits[c]) / (Math.exp(logits[0]) + Math.exp(logits[1]));
          assert.ok(Math.abs(t.prob - prob) < 1e-4, `${name}: p(${t.label}) ${t.prob}, golden ${prob}`);
        });
        for (const c of [0, 1]) {
          for (const [key, [method, startLayer, least]] of Object.entries(ACCEPTANCE)) {
            const map = (startLayer === 'last' ? last : first).targets[c].maps[method];
            const want = golden.get(`${name}/${c}/${key}`).data;
            const where = `${name}, class ${c}, ${key}`;
            assert.deepEqual(map.shape, [opened.ids.length], `${where}: one value per token`);
            if (Array.prototype.some.call(want, Number.isNaN)) {
              // The official GradCAM divides by zero where every head weight is negative: NaN
              // there (but the [CLS] entry, set to 0 after), zeros here (as for images).
              assert.ok(map.data.every((v) => v === 0), `${where}: NaN in the golden data, not zeros here`);
              continue;
            }
            if (constant(want)) {
              assert.ok(constant(map.data), `${where}: constant in the golden data, not here`);
              continue;
            }
            const r = pearson(map.data, want);
            seen.push(`${where} ${r.toFixed(6)}`);
            assert.ok(r >= least, `${where}: Pearson ${r} < ${least}`);
            if (TOP_TOKEN_TOO.has(key)) assert.equal(argmax(map.data), argmax(want), `${where}: top token`);
          }
          // lrp_full by its rules (METHODS.md): one value per token, [CLS]'s set to 0, finite.
          const lrp = first.targets[c].maps.lrp_full;
          assert.equal(lrp.data.length, opened.ids.length);
          assert.equal(lrp.data[0], 0, `${name}, class ${c}: lrp_full's [CLS] entry`);
          assert.ok(lrp.data.every(Number.isFinite), `${name}, class ${c}: lrp_full finite`);
          // Word maps: each word the max of its pieces.
          assert.equal(first.targets[c].wordMaps.transformer_attribution.length, opened.words.length);
        }
      } finally {
        opened.close();
      }
    }
  } finally {
    await explainer.close();
  }
  assert.equal(seen.length > 0, true, 'some maps compared');
});
