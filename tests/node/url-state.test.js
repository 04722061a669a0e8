// The link's keys (web/page/lib/url-state.js): every key's check at its stage, bad values and
// unknown keys as notices, defaults left out of written links, untaken values kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LinkState, LINK_KEYS, OLD_LINK_KEYS } from '../../web/page/lib/url-state.js';

const defaults = () => ({
  backend: 'wasm', view: 'single', colormap: 'jet', threshold: 'none', opacity: 0.55, display: 'smooth', frame: 'photo', crop: 'center', exif: 'use',
  method: 'transformer_attribution', startLayer: 0, classId: null, contrastId: null, contrastive: false,
});
const ctx = {
  start: { backends: ['wasm'], views: ['single', 'grid', 'pair', 'compare'], colormaps: ['jet', 'viridis'], thresholds: ['none', 'otsu'], displays: ['smooth', 'patches'], frames: ['photo', 'model'], crops: ['center', 'none'] },
  index: { models: ['deit_tiny_patch16_224'] },
  model: { methods: ['transformer_attribution', 'attention_rollout'], blocks: 12 },
  prediction: { classes: 1000 },
};
const takeAll = (link, state) => Object.assign({}, ...['start', 'index', 'model', 'prediction'].map((s) => link.take(s, ctx[s], state)));

test('every key has a stage and a check', () => {
  for (const [key, row] of Object.entries(LINK_KEYS)) {
    assert.ok(['start', 'index', 'model', 'prediction', 'page'].includes(row.stage), key);
    assert.equal(typeof row.check, 'function', key);
  }
});

test('valid values set their fields, at their stage only', () => {
  const state = defaults();
  const link = new LinkState('?cmap=viridis&opacity=0.8&start-layer=3&class=282&contrast=243&contrastive=1&view=compare&model=deit_tiny_patch16_224', state);
  link.take('start', ctx.start, state);
  assert.equal(state.colormap, 'viridis');
  assert.equal(state.opacity, 0.8);
  assert.equal(state.view, 'compare');
  assert.equal(state.startLayer, 0, 'the layer waits for the model');
  assert.equal(link.peek('start-layer'), '3');
  assert.deepEqual(link.take('index', ctx.index, state), { model: 'deit_tiny_patch16_224' });
  link.take('model', ctx.model, state);
  link.take('prediction', ctx.prediction, state);
  assert.deepEqual([state.startLayer, state.classId, state.contrastId, state.contrastive], [3, 282, 243, true]);
  assert.deepEqual(link.drainNotices(), []);
});

// Links written before docs/glossary.md: `layer`, `vs` for the contrast class, `contrast` the switch.
test('an old link opens the same view as its new link, and is written back in new keys', () => {
  const pairs = [
    ['?layer=3&class=282&vs=243&contrast=1', '?start-layer=3&class=282&contrast=243&contrastive=1'],
    ['?class=282&vs=243', '?class=282&contrast=243&contrastive=0'],
    ['?contrast=1', '?contrastive=1'],
    ['?contrast=0&layer=2', '?contrastive=0&start-layer=2'],
    ['?layer=1&start-layer=2', '?start-layer=2'], // the new key wins
  ];
  for (const [old, now] of pairs) {
    const [a, b] = [old, now].map((q) => {
      const state = defaults();
      const link = new LinkState(q, state);
      takeAll(link, state);
      assert.deepEqual(link.drainNotices(), [], q);
      return state;
    });
    assert.deepEqual(a, b, `${old} and ${now}`);
  }
  const state = defaults();
  const link = new LinkState('?layer=3&class=282&vs=243&contrast=1', state);
  assert.equal(link.query(state, {}), 'start-layer=3&class=282&contrast=243&contrastive=1');
});

test('a contrast class 0 or 1 keeps its meaning in the links the page writes', () => {
  const state = { ...defaults(), classId: 5, contrastId: 1 };
  const written = new LinkState('', defaults()).query(state, {});
  assert.equal(written, 'class=5&contrast=1&contrastive=0');
  const read = defaults();
  takeAll(new LinkState(`?${written}`, read), read);
  assert.deepEqual([read.classId, read.contrastId, read.contrastive], [5, 1, false]);
});

test('unknown keys and bad values become notices that name them; nothing throws', () => {
  const state = defaults();
  const bad = '?colour=red&cmap=rainbow&opacity=1.5&opacity2=x&layer=12&layer=-1&class=1000&vs=abc&contrast=yes'
    + '&method=nope&view=&backend=webgpu&model=vit_huge&threshold=otsu';
  const link = new LinkState(bad, state);
  takeAll(link, state);
  const notices = link.drainNotices().join('\n');
  for (const part of ['colour=red (not a setting', 'cmap=rainbow (must be one of jet, viridis)', 'opacity=1.5 (must be a number from 0 to 1)',
    'opacity2=x', 'layer=-1 (must be a whole number from 0 to 11)', 'class=1000 (must be a whole number from 0 to 999)',
    'vs=abc', 'contrast=yes (must be 1 or 0)', 'method=nope', 'view= ', 'backend=webgpu (must be one of wasm)', 'model=vit_huge']) {
    assert.ok(notices.includes(part), `${part} in:\n${notices}`);
  }
  const untouched = { ...defaults(), threshold: 'otsu' };
  assert.deepEqual(state, untouched, 'only the valid threshold applied');
  assert.deepEqual(link.drainNotices(), [], 'notices are given once');
  const now = new LinkState('?start-layer=12&contrast=abc&contrastive=yes', state);
  takeAll(now, state);
  assert.deepEqual(now.drainNotices(), ['start-layer=12 (must be a whole number from 0 to 11)', 'contrast=abc (must be a whole number from 0 to 999)',
    'contrastive=yes (must be 1 or 0)']);
});

test('a written link leaves out defaults and keeps what is not taken yet', () => {
  const state = defaults();
  const link = new LinkState('?class=282&photo=catdog.png', state);
  state.colormap = 'viridis';
  assert.equal(link.query(state, { model: 'm', photo: undefined }), 'model=m&cmap=viridis&photo=catdog.png&class=282');
  assert.equal(link.checked('photo'), 'catdog.png');
  link.forget('photo', 'class');
  state.classId = 5;
  state.contrastive = true;
  assert.equal(link.query(state, { model: 'm', photo: 'x.png' }), 'model=m&cmap=viridis&photo=x.png&class=5&contrastive=1');
  const empty = new LinkState('?photo=', state);
  assert.equal(empty.checked('photo'), undefined);
  assert.match(empty.drainNotices()[0], /photo= \(must be a file name/);
});

test('random queries never throw: every key is either applied, pending or a notice', () => {
  let seed = 7;
  const rand = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const pieces = [...Object.keys(LINK_KEYS), ...Object.keys(OLD_LINK_KEYS), 'x', '', '=', '&', '%', '%zz', '%E2%82%AC', '1', '-1', '0.5', 'NaN', '1e3', 'é', ' ', '+', '#', '?'];
  for (let i = 0; i < 2000; i++) {
    const query = Array.from({ length: 1 + rand(12) }, () => pieces[rand(pieces.length)]).join('');
    const state = defaults();
    const link = new LinkState(query, state);
    const given = [...new URLSearchParams(query).keys()];
    takeAll(link, state);
    const notices = link.drainNotices();
    for (const key of new Set(given)) {
      const known = key in LINK_KEYS || key in OLD_LINK_KEYS; // an old key is taken as its new one
      const handled = LINK_KEYS[key]?.stage === 'page' || notices.some((n) => n.startsWith(`${key}=`))
        || (known && link.peek(OLD_LINK_KEYS[key] ?? key) === undefined);
      assert.ok(handled, `${key} in ${JSON.stringify(query)}`);
    }
    assert.doesNotThrow(() => link.query(state, {}));
  }
});
