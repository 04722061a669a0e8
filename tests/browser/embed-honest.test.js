// What a documentation writer sees on a plain static host (no COOP/COEP), element and
// iframe alike (issue 29): a contrast with a method that cannot contrast says why, several
// methods name the ones left out, contrast captions give both classes' probability and
// rank, backend="webgpu" without WebGPU says that WebAssembly ran, a bad contrast class is
// named as the contrast, a data: photo is not named by a piece of its content, and the
// iframe runs models, and on a plain static host fetches photos, from its own origin (or
// those the site allows) only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { listen } from '../../scripts/serve.js';
import { skipReason, startSite, launch, openPage, paths } from './harness.js';

const skip = skipReason() ?? false;
const TIMEOUT = 300_000;
const HOSTILE = '<svg onload=alert(1)>';
const CANNOT = /^Rollout reads only the attention, which is the same for every class: it cannot contrast two classes\. Choose a method that can: transformer_attribution, /;
const LEFT_OUT = 'Rollout reads only the attention, which is the same for every class: it cannot contrast two classes, so it is left out';
// On its own a page without WebGPU falls back; beside elements on WebAssembly, it shares their session.
const NO_ADAPTER = /WebGPU was asked for, but this browser (offers no WebGPU|has no WebGPU adapter): WebAssembly runs instead/;
const NO_WEBGPU = /WebGPU was asked for, but (this browser (offers no WebGPU|has no WebGPU adapter): WebAssembly runs instead|this page already runs the model on WebAssembly, which every explainer of the page shares)/;
const BAD_CONTRAST = /^contrast "<svg onload=alert\(1\)>" is not a class of this model\./;
const DATA_URL = 'data:text/html,<script>alert(1)</script>';

const escape = (s) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');
// Each element's last event ('explained' or 'error') and its message, from the start.
const RECORDER = `<script>
  window.__events = {};
  for (const type of ['explained', 'error']) {
    document.addEventListener(type, (e) => {
      if (e.target.localName === 'vit-relevance') window.__events[e.target.id] = { type, message: e.detail?.message, notes: e.detail?.notes, backend: e.detail?.backend };
    }, true);
  }
</script>`;
const ELEMENTS = {
  rollout: { 'class-id': 'tiger cat', contrast: 'bull mastiff', method: 'attention_rollout' },
  pair: { 'class-id': 'tiger cat', contrast: 'bull mastiff', method: 'transformer_attribution,attention_rollout' },
  gpu: { backend: 'webgpu' },
  hostile: { 'class-id': '282', contrast: HOSTILE },
  data: { src: DATA_URL },
};
const attributes = (a) => Object.entries({ src: 'samples/catdog.png', ...a }).map(([k, v]) => `${k}="${escape(v)}"`).join(' ');
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs</title>${RECORDER}
<script type="module" src="vit-relevance-element.js"></script></head><body>
${Object.entries(ELEMENTS).map(([id, a]) => `<vit-relevance id="${id}" ${attributes(a)} loading="eager"></vit-relevance>`).join('\n')}
</body></html>`;
// embed.html as a site that allows one other origin's models builds it (VITREL_MODEL_ORIGINS).
const embedAllowing = (origin) => readFileSync(path.join(paths.site, 'embed.html'), 'utf8')
  .replace('name="vit-relevance-model-origins" content=""', `name="vit-relevance-model-origins" content="${origin}"`);

let site;
let other; // a second origin, serving models too
let browser;
let session;

before(async () => {
  if (skip) return;
  other = await startSite({ isolate: false });
  site = await startSite({ isolate: false, overrides: {
    '/docs.html': { body: PAGE, type: 'text/html' },
    '/blank.html': { body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>', type: 'text/html' },
    '/embed-allowing.html': { body: embedAllowing(new URL(other.url).origin), type: 'text/html' },
  } });
  browser = await launch(); // --disable-gpu: no WebGPU adapter
  session = await openPage(browser, `${site.url}docs.html`);
  await session.page.waitForFunction((n) => Object.keys(window.__events).length === n, Object.keys(ELEMENTS).length, { timeout: TIMEOUT });
});
after(async () => {
  await browser?.close();
  await site?.close();
  await other?.close();
});

const page = () => session.page;
const event = (id) => page().evaluate((i) => window.__events[i], id);
const caption = (root, id) => root.evaluate((i) => {
  const el = i ? document.getElementById(i) : document.querySelector('vit-relevance');
  const c = el.shadowRoot.querySelector('figcaption');
  return { text: c.textContent, error: c.className === 'error', maps: el.shadowRoot.querySelectorAll('canvas').length };
}, id);

// One iframe of embed.html (or another page) with `query`; → its frame once its element
// has explained or failed, or null when it shows no element.
async function openFrame(query, file = 'embed.html', host = site) {
  const { page: p, context, requests } = await openPage(browser, `${host.url}blank.html`);
  await p.evaluate(([src]) => {
    const frame = document.createElement('iframe');
    frame.id = 'frame';
    frame.src = src;
    document.body.replaceChildren(frame);
  }, [`${file}?${new URLSearchParams(query)}`]);
  const frame = await (await p.waitForSelector('#frame')).contentFrame();
  await frame.waitForFunction(() => {
    const el = document.querySelector('vit-relevance');
    if (!el) return Boolean(document.querySelector('p.error'));
    return el.dataset.rendered || el.shadowRoot.querySelector('figcaption.error');
  }, null, { timeout: TIMEOUT });
  return { frame, context, requests };
}

test('a contrast with a method that cannot contrast says why, in the element and the iframe', { skip, timeout: TIMEOUT }, async () => {
  const shown = await caption(page(), 'rollout');
  assert.match(shown.text, CANNOT);
  assert.equal(shown.error, true);
  assert.match((await event('rollout')).message, CANNOT);
  const { frame, context } = await openFrame({ src: 'samples/catdog.png', ...ELEMENTS.rollout });
  try {
    assert.match((await caption(frame)).text, CANNOT);
  } finally {
    await context.close();
  }
});

test('a contrast over several methods draws those that can and names the one left out', { skip, timeout: TIMEOUT }, async () => {
  const shown = await caption(page(), 'pair');
  assert.equal(shown.maps, 1);
  assert.ok(shown.text.includes(LEFT_OUT), shown.text);
  assert.deepEqual((await event('pair')).notes, [LEFT_OUT]);
  const maps = await page().evaluate(() => Object.keys(document.getElementById('pair').result.targets[0].maps));
  assert.deepEqual(maps, ['transformer_attribution']);
});

test('a contrast caption gives both classes\' probability and rank, as a plain target\'s does', { skip, timeout: TIMEOUT }, async () => {
  const standing = /\d+(\.\d+)?%, rank \d+/.source;
  const pattern = new RegExp(`^tiger cat \\(${standing}\\) rather than bull mastiff \\(${standing}\\) · Transformer attribution`);
  assert.match((await caption(page(), 'pair')).text, pattern);
  const { frame, context } = await openFrame({ src: 'samples/catdog.png', 'class-id': 'tiger cat', contrast: 'bull mastiff' });
  try {
    assert.match((await caption(frame)).text, pattern);
  } finally {
    await context.close();
  }
});

test('backend="webgpu" without WebGPU says that WebAssembly ran: caption, event and result', { skip, timeout: TIMEOUT }, async () => {
  const shown = await caption(page(), 'gpu');
  assert.equal(shown.error, false);
  assert.match(shown.text, NO_WEBGPU);
  const e = await event('gpu');
  assert.equal(e.backend, 'wasm');
  assert.match(e.notes.join('\n'), NO_WEBGPU);
  const { frame, context } = await openFrame({ src: 'samples/catdog.png', backend: 'webgpu' });
  try {
    assert.match((await caption(frame)).text, NO_ADAPTER);
    assert.equal(await frame.evaluate(() => document.querySelector('vit-relevance').result.backend), 'wasm');
  } finally {
    await context.close();
  }
});

test('a bad contrast class is named as the contrast; a data: photo is not named by its content', { skip, timeout: TIMEOUT }, async () => {
  assert.match((await caption(page(), 'hostile')).text, BAD_CONTRAST);
  const data = await caption(page(), 'data');
  assert.match(data.text, /^“data: URL” is not an image \(text\/html\)/);
  const { frame, context } = await openFrame({ src: 'samples/catdog.png', ...ELEMENTS.hostile });
  try {
    assert.match((await caption(frame)).text, BAD_CONTRAST);
  } finally {
    await context.close();
  }
});

test('the iframe runs a model from another origin only where the site allows that origin', { skip, timeout: TIMEOUT }, async () => {
  const foreign = `${other.url}models/`;
  const refused = await openFrame({ src: 'samples/catdog.png', model: foreign });
  try {
    const text = await refused.frame.textContent('p.error');
    assert.equal(text, `model ${foreign} is not on this site (${new URL(site.url).origin}) and its origin is not one the site allows (none): `
      + 'the site adds it with VITREL_MODEL_ORIGINS when it builds (docs/hosting.md)');
    assert.equal(await refused.frame.$('vit-relevance'), null);
    assert.deepEqual(refused.requests.filter((u) => u.startsWith(other.url)), [], 'nothing fetched from the other origin');
  } finally {
    await refused.context.close();
  }
  // Allowed: the frame asks the other origin for its models (whether that origin then
  // lets the browser read them is its CORS's business).
  const allowed = await openFrame({ src: 'samples/catdog.png', model: foreign }, 'embed-allowing.html');
  try {
    assert.ok(allowed.requests.some((u) => u.startsWith(`${other.url}models/`)), 'the allowed origin\'s models were requested');
  } finally {
    await allowed.context.close();
  }
  // The site's own models, by a relative URL, need no allowance.
  const own = await openFrame({ src: 'samples/catdog.png', model: 'models/' });
  try {
    assert.ok(await own.frame.evaluate(() => Boolean(document.querySelector('vit-relevance').result)));
  } finally {
    await own.context.close();
  }
});

// A second origin that records every request it gets and answers each with a photo anyone
// may read (CORS), as an attacker's server or a device on the visitor's network would.
async function recordingOrigin() {
  const seen = [];
  const photo = readFileSync(path.join(paths.sampleImages, 'catdog.png'));
  const server = createServer((req, res) => {
    seen.push(req.url);
    res.writeHead(200, { 'Content-Type': 'image/png', 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin' });
    res.end(photo);
  });
  const port = await listen(server, 0);
  return { origin: `http://127.0.0.1:${port}`, port, seen, close: () => new Promise((r) => server.close(r)) };
}

test('on a plain static host the iframe fetches photos from its own origin (or those the site allows) only', { skip, timeout: TIMEOUT }, async () => {
  const evil = await recordingOrigin();
  const plain = await startSite({ isolate: false, csp: false, build: false, overrides: {
    '/blank.html': { body: '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title></head><body></body></html>', type: 'text/html' },
    '/embed-allowing.html': { body: embedAllowing(evil.origin), type: 'text/html' },
  } });
  try {
    const origin = new URL(plain.url).origin;
    for (const src of [`${evil.origin}/x.png`, `//127.0.0.1:${evil.port}/y.png`, 'http://169.254.169.254/latest/meta-data/']) {
      const refused = await openFrame({ src }, 'embed.html', plain);
      try {
        const url = new URL(src, origin);
        assert.equal(await refused.frame.evaluate(() => document.querySelector('p.error')?.textContent), `photo ${url.href} is not on this site (${origin}) and its origin is not one the site allows (none): `
          + 'the site adds it with VITREL_MODEL_ORIGINS when it builds (docs/hosting.md)');
        assert.equal(await refused.frame.$('vit-relevance'), null);
        assert.deepEqual(refused.requests.filter((u) => u.startsWith(url.origin)), [], `the browser requested nothing of ${url.origin}`);
      } finally {
        await refused.context.close();
      }
    }
    assert.deepEqual(evil.seen, [], 'no request reached the second origin');
    // Allowed by the site's build: the photo comes from there and is explained.
    const allowed = await openFrame({ src: `${evil.origin}/catdog.png` }, 'embed-allowing.html', plain);
    try {
      assert.ok(await allowed.frame.evaluate(() => Boolean(document.querySelector('vit-relevance').result)));
      assert.deepEqual(evil.seen, ['/catdog.png']);
    } finally {
      await allowed.context.close();
    }
  } finally {
    await plain.close();
    await evil.close();
  }
});
