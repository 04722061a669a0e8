// The browser API explains a text with the same calls as a photo, in headless Chromium on
// the built default text model: loadExplainer, open(text), explain({ targets, methods,
// startLayer }), maps { shape: [S], data } with word maps, the same numbers as the Node API;
// a photo given to a text model and a text given to an image model are refused in one
// line. This test serves the text model's folder at text-models/ beside the site, as a
// docs author hosts one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { skipReason, WAIT_MS } from './harness.js';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../../runtime/node/index.js';
import { pearson } from '../node/maps-support.js';
import { openApiPage, TEXT_MODEL_URL } from './text-api-page.js';

const built = existsSync(DEFAULT_TEXT_MODEL);
const skip = skipReason() ?? (built ? false : 'the default text model is not built: run `npm run build`');
const TEXT = 'The acting is superb, but the plot is a complete mess.';
const METHODS = ['transformer_attribution', 'attention_rollout', 'gradcam', 'partial_lrp', 'lrp_full', 'attnlrp'];

let api;
before(async () => {
  if (!skip) api = await openApiPage();
});
after(() => api?.close());

const run = (fn, arg) => api.page.evaluate(fn, arg);

test('a text explained in the browser as in Node: same calls, same maps', { skip, timeout: WAIT_MS }, async () => {
  const model = TEXT_MODEL_URL;
  const page = await run(async ({ model: url, text, methods }) => {
    const explainer = await window.__api.loadExplainer({ model: url });
    const opened = await explainer.open(text);
    const first = await opened.explain({ targets: [0, 1], methods, startLayer: 'last' });
    const plain = (r) => ({ ...r, targets: r.targets.map((t) => ({ ...t,
      maps: Object.fromEntries(Object.entries(t.maps).map(([m, v]) => [m, { shape: v.shape, data: [...v.data] }])),
      wordMaps: Object.fromEntries(Object.entries(t.wordMaps).map(([m, v]) => [m, [...v]])) })) });
    const refused = await explainer.open(new Blob([new Uint8Array(8)], { type: 'image/png' })).then(() => 'opened', (e) => e.message);
    const out = { kind: explainer.kind, first: plain(first), refused };
    opened.close();
    explainer.close();
    return out;
  }, { model, text: TEXT, methods: METHODS });
  assert.equal(page.kind, 'text');
  assert.match(page.refused, /is a text model: it explains texts, not photos/);

  const node = await loadExplainer({ model: DEFAULT_TEXT_MODEL });
  try {
    const want = await node.explain(TEXT, { targets: [0, 1], methods: METHODS, startLayer: 'last' });
    assert.deepEqual(page.first.tokens, want.tokens);
    assert.deepEqual(page.first.offsets, want.offsets);
    assert.deepEqual(page.first.words, want.words);
    for (const [c, t] of want.targets.entries()) {
      const got = page.first.targets[c];
      assert.equal(got.id, t.id);
      assert.ok(Math.abs(got.prob - t.prob) < 1e-5, `p(${t.label})`);
      for (const m of METHODS) {
        assert.deepEqual(got.maps[m].shape, [want.tokens.length], `${m}: one value per token`);
        const mine = got.maps[m].data;
        if (t.maps[m].data.every((v) => v === 0)) {
          assert.ok(mine.every((v) => v === 0), `${t.label} ${m}: zeros in Node, not in the browser`); // GradCAM, all head weights negative
        } else {
          const r = pearson(mine, t.maps[m].data);
          assert.ok(r > 0.9999, `${t.label} ${m}: browser vs Node Pearson ${r}`);
        }
        assert.equal(got.wordMaps[m].length, want.words.length);
      }
    }
  } finally {
    await node.close();
  }
});

test('a text given to an image model is refused in one line', { skip, timeout: WAIT_MS }, async () => {
  const message = await run(async () => {
    const explainer = await window.__api.loadExplainer();
    try {
      return await explainer.open({ text: 'a good film' }).then(() => 'opened', (e) => e.message);
    } finally {
      explainer.close();
    }
  });
  assert.match(message, /is an image model: it explains photos, not texts/);
  assert.equal(message.split('\n').length, 1);
});

test("a text's first map opens only its method family's graph in the Worker", { skip, timeout: WAIT_MS }, async () => {
  const fresh = await openApiPage(); // a Worker that has opened nothing yet
  try {
    const open = await fresh.page.evaluate(async ({ model, text }) => {
      const { loadExplainer: load, runtimeStats } = window.__api;
      const explainer = await load({ model });
      const atLoad = (await runtimeStats()).openGraphs;
      const opened = await explainer.open(text);
      await opened.explain({ methods: ['transformer_attribution'] });
      const first = (await runtimeStats()).openGraphs;
      await opened.explain({ methods: ['raw_attention'] });
      const then = (await runtimeStats()).openGraphs;
      opened.close();
      explainer.close();
      return { atLoad, first, then };
    }, { model: TEXT_MODEL_URL, text: TEXT });
    const name = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
    assert.deepEqual(open.atLoad, [], 'no session opens at load');
    assert.deepEqual(open.first, [`${name}.transformer_attribution.onnx`]);
    // raw attention's maps come from the kept tensors of the first run: nothing more opens
    assert.deepEqual(open.then, [`${name}.transformer_attribution.onnx`]);
  } finally {
    await fresh.close();
  }
});
