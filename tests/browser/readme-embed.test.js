// The README's "Embed" section, followed literally: its HTML snippets pasted into a page of
// a small docs site, the files its "Hosting it" list names copied from dist/site into
// vit-relevance/ beside it, the photos the snippets name, served by a plain static file
// server (no special headers). Every element and iframe must show its map and caption at
// a sensible size: the elements at their default width whatever their number of methods,
// the frames as tall as their content, no canvas drawn larger than its own pixels.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { skipReason, launch, openPage, sample, paths, WAIT_MS } from './harness.js';
import { buildSite } from '../../scripts/build/site.js';

const skip = skipReason() ?? false;
const ELEMENT_WIDTH = 480; // the element's documented default (web/element/style.js)

// The "## Embed" section's fenced blocks: { lang, body }.
function embedBlocks() {
  const readme = readFileSync(path.join(paths.root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Embed');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}

// The list's first column, before a run of three spaces: the names on each line
// ("models/", "ort/v<version>/x.{mjs,wasm}", "vit-relevance-shared-*.js"); the rest says what they are.
const listedNames = (list) => list.split('\n').flatMap((line) => line.split(/ {3,}/)[0].trim().split(/\s+/).filter(Boolean));

// A listed name as a pattern over dist/site's paths: {a,b} alternatives, <word> and * one
// path part's characters, a trailing / the folder's files.
function pattern(name) {
  const source = name.replace(/[.+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]*)\}/g, (_, alts) => `(${alts.split(',').join('|')})`)
    .replace(/<[^>]*>/g, '[^/]+').replace(/\*/g, '[^/]*');
  return new RegExp(`^${source}${name.endsWith('/') ? '.+' : ''}$`);
}

function filesUnder(dir, prefix = '') {
  return readdirSync(dir).flatMap((f) => (statSync(path.join(dir, f)).isDirectory()
    ? filesUnder(path.join(dir, f), `${prefix}${f}/`) : [`${prefix}${f}`]));
}

// A static file server and nothing else, as `python3 -m http.server`.
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png' };
function serve(root) {
  const server = createServer((req, res) => {
    const asked = path.join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    const file = existsSync(asked) && statSync(asked).isDirectory() ? path.join(asked, 'index.html') : asked;
    if (!file.startsWith(root) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)),
  })));
}

let dir;
let host;
let browser;
let snippets;
before(async () => {
  if (skip) return;
  await buildSite(paths);
  const blocks = embedBlocks();
  snippets = blocks.filter((b) => b.lang === 'html').map((b) => b.body);
  const list = blocks.find((b) => b.lang === '' || b.lang === 'text');
  assert.ok(snippets.length >= 2 && list, 'the Embed section has its HTML snippets and its file list');
  dir = path.join(paths.build, 'readme-embed-site');
  rmSync(dir, { recursive: true, force: true });
  const site = filesUnder(paths.site);
  for (const name of listedNames(list.body)) {
    const matches = site.filter((f) => pattern(name).test(f));
    assert.ok(matches.length, `the README lists ${name}, which the built site does not have`);
    for (const f of matches) {
      mkdirSync(path.dirname(path.join(dir, 'vit-relevance', f)), { recursive: true });
      (f.startsWith('models/') ? linkSync : copyFileSync)(path.join(paths.site, f), path.join(dir, 'vit-relevance', f));
    }
  }
  // The photos the snippets name (the elements' src, the frames' ?src=), relative to the page.
  const html = snippets.join('\n');
  const photos = [...html.matchAll(/<vit-relevance[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1])
    .concat([...html.matchAll(/embed\.html\?([^"]+)"/g)].map((m) => new URLSearchParams(m[1].replace(/&amp;/g, '&')).get('src')));
  for (const photo of photos) {
    mkdirSync(path.dirname(path.join(dir, photo)), { recursive: true });
    copyFileSync(sample(path.basename(photo)), path.join(dir, photo));
  }
  writeFileSync(path.join(dir, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Our model card</title><link rel="icon" href="data:,"></head><body><h1>Our model card</h1><p>What the model looks at:</p>
${html}</body></html>`);
  host = await serve(dir);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await host?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the README\'s embed snippets, copied literally: every map and caption shows, at a sensible size', { skip, timeout: WAIT_MS }, async () => {
  const failed = []; // a file the list leaves out shows here
  const { page, context, errors, offOrigin } = await openPage(browser, host.url, { width: 1280, height: 800 }, {
    beforeLoad: (ctx) => ctx.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); }),
  });
  try {
    const elements = await page.$$eval('vit-relevance', (els) => els.length);
    const frames = await page.$$eval('iframe', (fs) => fs.length);
    assert.ok(elements >= 2 && frames >= 1, `${elements} elements, ${frames} iframes in the snippets`);
    // Every element drawn (lazy ones scrolled to), its caption written.
    for (let i = 0; i < elements; i++) {
      await page.locator('vit-relevance').nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction((k) => document.querySelectorAll('vit-relevance')[k].result, i);
    }
    const shown = await page.$$eval('vit-relevance', (els) => els.map((el) => ({
      width: el.getBoundingClientRect().width,
      methods: (el.getAttribute('method') ?? 'default').split(',').length,
      caption: el.shadowRoot.querySelector('figcaption').textContent,
      label: el.result.targets[0].label,
      canvases: [...el.shadowRoot.querySelectorAll('canvas')].map((c) => ({ css: c.getBoundingClientRect().width, own: c.width })),
    })));
    for (const e of shown) {
      assert.equal(e.width, ELEMENT_WIDTH, `an element of ${e.methods} method(s) is ${e.width} px wide`);
      assert.ok(e.caption.includes(e.label), `caption "${e.caption}" names ${e.label}`);
      for (const c of e.canvases) assert.ok(c.css >= 100 && c.css <= c.own + 0.5, `a canvas of ${c.own} px drawn ${c.css} px wide`);
    }
    assert.ok(new Set(shown.map((e) => e.methods)).size > 1, 'the snippets show one method and several');

    // Every frame: its element drawn, the frame as tall as its content, nothing upscaled.
    for (const handle of await page.$$('iframe')) {
      await handle.scrollIntoViewIfNeeded();
      const frame = await handle.contentFrame();
      await frame.waitForFunction(() => document.querySelector('vit-relevance')?.result);
      const inner = await frame.evaluate(() => {
        const el = document.querySelector('vit-relevance');
        const c = el.shadowRoot.querySelector('canvas');
        return { height: Math.ceil(document.documentElement.getBoundingClientRect().height), css: c.getBoundingClientRect().width, own: c.width,
          caption: el.shadowRoot.querySelector('figcaption').textContent, label: el.result.targets[0].label };
      });
      await page.waitForFunction(([f, h]) => Math.abs(f.getBoundingClientRect().height - h) <= 1, [handle, inner.height]);
      const box = await handle.boundingBox();
      assert.ok(box.width <= ELEMENT_WIDTH && box.height > 150, `frame ${box.width}×${box.height}`);
      assert.ok(inner.css >= 100 && inner.css <= inner.own + 0.5, `the frame's canvas of ${inner.own} px drawn ${inner.css} px wide`);
      assert.ok(inner.caption.includes(inner.label), inner.caption);
    }
    // The documented way to size an element.
    await page.$eval('vit-relevance', (el) => el.style.setProperty('--vit-relevance-width', '300px'));
    assert.equal(await page.$eval('vit-relevance', (el) => el.getBoundingClientRect().width), 300);
    await page.screenshot({ path: path.join(paths.root, 'test-artifacts', 'readme-embed.png'), fullPage: true });
    assert.deepEqual(failed, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(offOrigin, []);
  } finally {
    await context.close();
  }
});
