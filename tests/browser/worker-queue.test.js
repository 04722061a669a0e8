// The inference Worker's queue (web/worker.js), spoken to in its own protocol
// (web/lib/protocol.js) from a page of the site: a request superseded while it waits in
// the queue is skipped, not run, even when the newer one arrived while the Worker's thread
// was held (issue 30: a visit's first photo, chosen while the Worker opened a session,
// waited for the run of a link's photo it had replaced).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { skipReason, startSite, launch, openPage, firstModel } from './harness.js';

const skip = skipReason() || (!firstModel()?.split?.forward && 'no split forward graph') || false;
let site;
let browser;
let page;

before(async () => {
  if (skip) return;
  site = await startSite();
  browser = await launch();
  ({ page } = await openPage(browser, `${site.url}docs.html`));
  // A Worker of the site's script and a client that keeps every reply of each request.
  await page.evaluate(async () => {
    const worker = new Worker('worker.js', { type: 'module' });
    const pending = new Map();
    let nextId = 1;
    worker.onmessage = ({ data }) => {
      const p = pending.get(data.id);
      if (!p) return; // a notice
      p.replies.push(data);
      if (['done', 'stale', 'error'].includes(data.type)) p.resolve(p.replies);
    };
    // Posts every request of `bodies` in this one task → Promise of each one's reply types.
    window.__post = (...bodies) => Promise.all(bodies.map(({ transfer = [], ...body }) => new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, { replies: [], resolve });
      worker.postMessage({ ...body, id }, transfer);
    })));
    // A 64×64 photo of one grey, its bytes to transfer.
    window.__photo = (imageId) => {
      const rgba = new Uint8ClampedArray(64 * 64 * 4).fill(128 + imageId);
      return { type: 'analyze', imageId, rgba: rgba.buffer, width: 64, height: 64, methods: ['transformer_attribution'], transfer: [rgba.buffer] };
    };
    const { models: [model] } = await (await fetch('models/index.json')).json();
    const [init] = await window.__post({ type: 'init', model, base: new URL('models/', location.href).href, backend: 'wasm', prepare: true });
    const ready = init.find((r) => r.type === 'ready');
    if (!ready) throw new Error(`init: ${JSON.stringify(init.at(-1))}`);
    window.__modelKey = ready.modelKey;
    const [first] = await window.__post({ ...window.__photo(1), modelKey: ready.modelKey });
    if (first.at(-1).type !== 'done') throw new Error(`the first photo: ${JSON.stringify(first.at(-1))}`);
  });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

test('a photo superseded while the Worker\'s thread is held is skipped: only the newest is explained', { skip }, async () => {
  // The bench request holds the Worker's thread (ten forward passes in one queue turn)
  // while both photos arrive; the second supersedes the first.
  const [bench, replaced, newest] = await page.evaluate(async () => {
    const photo = (imageId) => ({ ...window.__photo(imageId), modelKey: window.__modelKey, supersede: true });
    const all = await window.__post({ type: 'bench', imageId: 1, runs: 10 }, photo(2), photo(3));
    return all.map((replies) => replies.map((r) => r.type));
  });
  assert.deepEqual(bench, ['bench', 'done']);
  assert.deepEqual(replaced, ['stale']);
  assert.deepEqual(newest, ['prediction', 'maps', 'done']);
});
