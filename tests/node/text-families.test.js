// The default text model's method family graphs (models/exporter/text/families.py) as the
// runtime opens them (runtime/text-explainer.js): a request opens the one graph it needs
// and no other, each family gives the explainer graph's own outputs for its methods (the
// explainer graph alone, opened at once as a folder exported before the families is), and
// a family graph that is not one is refused; a graph copied without its index.json opens
// with the weights file beside it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../../runtime/node/index.js';
import { sharedTextFiles } from '../../runtime/node/open-text.js';
import { openTextExplainer } from '../../runtime/text-explainer.js';

const metaPath = DEFAULT_TEXT_MODEL.replace(/\.onnx$/, '.json');
const skip = !existsSync(metaPath) ? 'the default text model is not built: run `npm run build`' : false;
// [CLS] a sentence's word pieces [SEP] (any ids of the vocabulary do)
const IDS = BigInt64Array.from([101n, 1037n, 21900n, 1010n, 6057n, 1998n, 3048n, 2143n, 1012n, 102n]);
// The exporter's bound (models/exporter/text/graphs.py, FAMILY_LIMIT: onnxruntime fuses a
// cut graph otherwise; measured 0 on this model, 1.7e-6 on a random one).
const TOLERANCE = 1e-4;

async function open(families = true) {
  const metadata = JSON.parse(readFileSync(metaPath, 'utf8'));
  const shared = await sharedTextFiles(DEFAULT_TEXT_MODEL);
  assert.ok(shared, 'the built text model lists its family graphs and weights (index.json split)');
  return openTextExplainer({
    ort, metadata, model: readFileSync(DEFAULT_TEXT_MODEL), modelName: path.basename(DEFAULT_TEXT_MODEL),
    families: families ? shared.families : [], sessionOptions: { externalData: [shared.weights] },
  });
}

const openGraphs = (explainer) => explainer.graphs().filter((g) => g.open).map((g) => g.name);
const family = (name) => `${path.basename(DEFAULT_TEXT_MODEL, '.onnx')}.${name}.onnx`;

test('a request opens only the family graph it needs', { skip, timeout: 120_000 }, async () => {
  const explainer = await open();
  try {
    assert.deepEqual(openGraphs(explainer), [], 'no session opens before a request');
    const first = await explainer.explain(IDS, [null], { outputs: ['attn', 'attn_grad', 'attn_rel'] });
    assert.equal(first.graph, family('transformer_attribution'));
    assert.deepEqual(openGraphs(explainer), [family('transformer_attribution')]);
    // attention alone: the smallest graph with it, the attention family
    assert.equal((await explainer.explain(IDS, [null], { outputs: ['attn'] })).graph, family('attention'));
    assert.equal((await explainer.explain(IDS, [0], { outputs: ['input_rel_classic'] })).graph, family('lrp'));
    assert.equal((await explainer.explain(IDS, [0], { outputs: ['input_rel_cp_lrp'] })).graph, family('attnlrp'));
    assert.ok(!openGraphs(explainer).includes(path.basename(DEFAULT_TEXT_MODEL)), 'the explainer graph never opened');
  } finally {
    await explainer.release();
  }
});

test("each family graph gives the explainer graph's outputs", { skip, timeout: 180_000 }, async () => {
  const [withFamilies, alone] = await Promise.all([open(true), open(false)]);
  try {
    for (const g of withFamilies.graphs().filter((r) => r.name !== path.basename(DEFAULT_TEXT_MODEL))) {
      const outputs = g.outputs.filter((o) => o !== 'logits');
      const got = await withFamilies.explain(IDS, [null, 1], { outputs });
      const want = await alone.explain(IDS, [null, 1], { outputs });
      assert.equal(got.graph, g.name);
      assert.equal(want.graph, path.basename(DEFAULT_TEXT_MODEL));
      assert.deepEqual(got.classes, want.classes);
      for (const [k, row] of want.tensors.entries()) {
        for (const o of outputs) {
          const a = got.tensors[k][o].data;
          const b = row[o].data;
          const scale = b.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
          const diff = b.reduce((m, v, i) => Math.max(m, Math.abs(v - a[i])), 0);
          assert.ok(scale > 0, `${g.name} ${o}: an all-zero output would prove nothing`);
          assert.ok(diff <= TOLERANCE * scale, `${g.name} ${o} row ${k}: ${diff} from the explainer's (largest ${scale})`);
        }
      }
    }
  } finally {
    await Promise.all([withFamilies.release(), alone.release()]);
  }
});

test('a family graph that is not one is refused before any session opens', { skip }, async () => {
  const metadata = JSON.parse(readFileSync(metaPath, 'utf8'));
  const shared = await sharedTextFiles(DEFAULT_TEXT_MODEL);
  await assert.rejects(openTextExplainer({
    ort, metadata, model: readFileSync(DEFAULT_TEXT_MODEL), families: [{ name: 'wrong.onnx', bytes: new Uint8Array([1, 2, 3]) }],
    sessionOptions: { externalData: [shared.weights] },
  }), /wrong\.onnx is not an ONNX model/);
  // the attribution's states graph: an ONNX graph whose outputs are not the model's
  const states = readFileSync(DEFAULT_TEXT_MODEL.replace(/\.onnx$/, '.states.onnx'));
  await assert.rejects(openTextExplainer({
    ort, metadata, model: readFileSync(DEFAULT_TEXT_MODEL), families: [{ name: 'states.onnx', bytes: states }],
    sessionOptions: { externalData: [shared.weights] },
  }), /states\.onnx is not a text model's family graph: its outputs hidden are not the model's/);
});

test('a graph copied without its index.json opens with the weights file beside it', { skip, timeout: 120_000 }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'text-families-'));
  try {
    const stem = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
    for (const f of [`${stem}.onnx`, `${stem}.json`, `${stem}.vocab.txt`, `${stem}.weights.bin`]) {
      copyFileSync(path.join(path.dirname(DEFAULT_TEXT_MODEL), f), path.join(dir, f));
    }
    const explainer = await loadExplainer({ model: path.join(dir, `${stem}.onnx`), threads: 1 });
    try {
      const { targets } = await explainer.explain('a gripping film', { methods: ['raw_attention'] });
      assert.equal(targets[0].maps.raw_attention.shape[0], 5);
    } finally {
      await explainer.close();
    }
    rmSync(path.join(dir, `${stem}.weights.bin`));
    await assert.rejects(loadExplainer({ model: path.join(dir, `${stem}.onnx`), threads: 1 }),
      new RegExp(`keeps its weights in the external file ${stem}\\.weights\\.bin, which is missing`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an index.json naming a family graph outside the folder, or one that is not there, is refused before anything is read', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'text-families-'));
  try {
    for (const family of ['../m.attention.onnx', 'm.attention.onnx']) {
      const split = { weights: 'm.weights.bin', families: { attention: family } };
      writeFileSync(path.join(dir, 'index.json'), JSON.stringify({ models: [{ name: 'm', onnx: 'm.onnx', split }] }));
      writeFileSync(path.join(dir, 'm.weights.bin'), '');
      await assert.rejects(sharedTextFiles(path.join(dir, 'm.onnx')),
        new RegExp(`lists "${family.replace(/\./g, '\\.')}" for m: not a file beside m\\.onnx`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
