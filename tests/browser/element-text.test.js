// <vit-relevance> and the iframe route with a text model, in headless Chromium on the built
// default text model, served as a docs author hosts it (an exported folder under
// vit-relevance/text-models/, beside the site's scripts under vit-relevance/): five
// sentences on one page load the model once; the text attribute and the element's content;
// class and contrast; method, scale and unit switches; a word's score on hover and focus;
// docs/embed.md's text snippet as written (elements and the iframe's ?text=); wrapping at
// 390 px; HTML in a text shows as text, and a 1 MB text is refused in one line before
// anything downloads; a site built with the text model (VITREL_MODELS) serves it whole. Every wait is on a state the element exposes (data-state, data-rendered).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { skipReason, startSite, launch, openPage, paths, screenshot, WAIT_MS } from './harness.js';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';
import { textModelRoutes, TEXT_MODEL_URL } from './text-api-page.js';
import { buildSite } from '../../scripts/build/site.js';
import { siteFiles } from '../../scripts/build/site-models.js';
import { tempDir } from '../node/maps-support.js';

const skip = skipReason() ?? (existsSync(DEFAULT_TEXT_MODEL) ? false : 'the default text model is not built: run `npm run build`');
const PREFIX = '/vit-relevance/';
const MODEL = `vit-relevance/${TEXT_MODEL_URL}`;
const NAME = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
const SENTENCE = 'The acting is superb, but the plot is a complete mess.';

const page = (title, body) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<script type="module" src="vit-relevance/vit-relevance-element.js"></script></head><body>${body}</body></html>`;

const FIVE = page('five sentences', `
<vit-relevance id="s1" model="${MODEL}" text="${SENTENCE}"></vit-relevance>
<vit-relevance id="s2" model="${MODEL}">
    A gripping,
    <b>beautifully</b> shot film.
</vit-relevance>
<vit-relevance id="s3" model="${MODEL}" text="I expected to hate it, and I didn't." class-id="negative" contrast="positive"></vit-relevance>
<vit-relevance id="s4" model="${MODEL}" text="Dull, slow and far too long." method="transformer_attribution,attnlrp"></vit-relevance>
<vit-relevance id="s5" model="${MODEL}" text="An unbelievably charming comedy." unit="word"></vit-relevance>`);

const LONG_TEXT = `${'This review goes on and on about the film, its actors, its music and its photography, '.repeat(6)}`
  + 'and ends with a link nobody can break: https://example.org/reviews/an-extraordinarily-long-path-without-any-space-at-all-in-it';
const NARROW = page('narrow', `<h1>Reviews</h1><vit-relevance id="long" model="${MODEL}" loading="eager"
  text="${LONG_TEXT}" method="transformer_attribution,attnlrp"></vit-relevance>`);

const HOSTILE_TEXT = '<img src=x onerror="window.__pwned = 1"><b>bold</b> & a fine film';
const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const HOSTILE = page('hostile', `<vit-relevance id="html" model="${MODEL}" loading="eager" text="${escapeAttr(HOSTILE_TEXT)}"></vit-relevance>`);
const HUGE = page('huge', `<iframe id="frame" title="huge"></iframe>
<script>window.__messages = []; addEventListener('message', (e) => window.__messages.push(e.data));</script>`);

// docs/embed.md's "Text" snippet, as a docs author pastes it into a page beside vit-relevance/.
function docsSnippet() {
  const md = readFileSync(path.join(paths.root, 'docs', 'embed.md'), 'utf8');
  const at = md.indexOf('\n**Text.**');
  assert.ok(at > 0, 'docs/embed.md has its Text section');
  return /```html\n([\s\S]*?)```/.exec(md.slice(at))[1];
}
const DOCS = () => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs</title><link rel="icon" href="data:,">
<script>window.__messages = []; addEventListener('message', (e) => window.__messages.push(e.data));</script></head>
<body><h1>Our text model</h1>${docsSnippet()}</body></html>`;

let site;
let browser;
let five;

before(async () => {
  if (skip) return;
  const html = (body) => ({ body, type: 'text/html' });
  site = await startSite({ prefix: PREFIX, overrides: {
    '/five.html': html(FIVE), '/narrow.html': html(NARROW), '/hostile.html': html(HOSTILE), '/huge.html': html(HUGE), '/docs.html': html(DOCS()),
    ...textModelRoutes(PREFIX),
  } });
  site.root = site.url.slice(0, -PREFIX.length + 1);
  browser = await launch();
  five = await openPage(browser, `${site.root}five.html`);
});
after(async () => {
  await browser?.close();
  await site?.close();
});

// Waits until every element of the page (or of `ids`) has drawn (or failed).
const settled = (p, ids = null) => p.waitForFunction((want) => [...document.querySelectorAll('vit-relevance')]
  .filter((e) => !want || want.includes(e.id)).every((e) => e.dataset.state === 'done' || e.dataset.state === 'error'), ids);

// What an element shows: its state, caption, tiles (method, scale, text, spans), result.
const shown = (p, id) => p.evaluate((i) => {
  const el = document.getElementById(i);
  const root = el.shadowRoot;
  return {
    state: el.dataset.state,
    rendered: Number(el.dataset.rendered),
    caption: root.querySelector('figcaption').textContent,
    tiles: [...root.querySelectorAll('.text-tile')].map((t) => ({
      method: t.dataset.method,
      scale: t.dataset.scale,
      text: t.querySelector('.text').textContent,
      label: t.querySelector('.text').getAttribute('aria-label'),
      legend: t.querySelector('.legend').textContent,
      spans: [...t.querySelectorAll('.text .t')].map((s) => ({ text: s.textContent, title: s.title, score: Number(s.dataset.score), bg: s.style.background })),
      specials: [...t.querySelectorAll('.specials .t')].map((s) => s.textContent),
    })),
    result: el.result && { text: el.result.text, tokens: el.result.tokens, words: el.result.words, targets: el.result.targets.map((t) => ({
      label: t.label, contrast: t.contrast?.label ?? null, methods: Object.keys(t.maps),
      maps: Object.fromEntries(Object.entries(t.maps).map(([m, v]) => [m, [...v.data]])),
      wordMaps: Object.fromEntries(Object.entries(t.wordMaps).map(([m, v]) => [m, [...v]])) })) },
  };
}, id);

test('five sentences on one page: one download of the text model, one session, each drawn coloured with its caption', { skip, timeout: WAIT_MS }, async () => {
  const p = five.page;
  await settled(p);
  // The model's files as fetched (a file's URL may carry its hash as a query).
  const fetched = (file) => five.requests.filter((u) => new URL(u).pathname === `${PREFIX}${TEXT_MODEL_URL}${file}`);
  const onnx = fetched(`${NAME}.onnx`);
  const vocab = fetched(`${NAME}.vocab.txt`);
  assert.equal(onnx.length, 1, `the text model's graph fetched once: ${onnx.join(', ')}`);
  assert.equal(vocab.length, 1, 'its vocabulary fetched once');
  const stats = await p.evaluate(async () => (await import(new URL('vit-relevance/vit-relevance.js', document.baseURI).href)).runtimeStats());
  assert.equal(stats.sessions, 1, 'one session for the five elements');
  // The text scripts the element, the API and the Worker load on demand: once each.
  for (const f of ['element-text.js', 'api-text.js', 'worker-text.js']) {
    assert.equal(five.requests.filter((u) => new URL(u).pathname === `${PREFIX}${f}`).length, 1, `${f} fetched once`);
  }

  for (const id of ['s1', 's2', 's3', 's4', 's5']) {
    const s = await shown(p, id);
    assert.equal(s.state, 'done', `${id}: ${s.caption}`);
    const [target] = s.result.targets;
    assert.equal(s.tiles.length, target.methods.length, `${id}: one tile per method`);
    assert.ok(s.caption.startsWith(target.label), `${id}'s caption names the class: ${s.caption}`);
    assert.match(s.caption, /\d%, rank [12]/, `${id}'s caption gives its probability and rank`);
    for (const tile of s.tiles) {
      assert.equal(tile.text, s.result.text, `${id}: the text is drawn whole`);
      assert.ok(tile.spans.length > 3 && tile.spans.every((x) => x.bg.startsWith('rgb(')), `${id}: every token coloured`);
      assert.ok(tile.label.includes(target.label), `${id}: the text's accessible name says what it shows`);
      assert.match(tile.legend, /scale/, `${id}: a legend`);
    }
  }
  const s1 = await shown(p, 's1');
  assert.equal(s1.result.text, SENTENCE);
  // Token by token: the spans are the tokens with characters, [CLS] and [SEP] after the text.
  const tokens = s1.result.tokens.filter((t) => !/^\[(CLS|SEP)\]$/.test(t));
  assert.deepEqual(s1.tiles[0].spans.map((x) => x.text.toLowerCase()), tokens.map((t) => t.replace(/^##/, '')));
  assert.deepEqual(s1.tiles[0].specials, ['[CLS]', '[SEP]']);
  assert.equal(s1.tiles[0].scale, 'positive', 'transformer attribution: the positive scale');
  // The element's content is its text, whitespace collapsed as the page shows it.
  assert.equal((await shown(p, 's2')).result.text, 'A gripping, beautifully shot film.');
  // A contrast: why negative rather than positive, on the signed scale.
  const s3 = await shown(p, 's3');
  assert.equal(s3.result.targets[0].label, 'negative');
  assert.equal(s3.result.targets[0].contrast, 'positive');
  assert.match(s3.caption, /^negative \(.+\) rather than positive \(/);
  assert.ok(s3.tiles.every((t) => t.scale === 'signed'), 'a contrast is drawn signed');
  assert.match(s3.tiles[0].legend, /signed scale/);
  // Two methods, attnlrp signed by default.
  const s4 = await shown(p, 's4');
  assert.deepEqual(s4.tiles.map((t) => [t.method, t.scale]), [['transformer_attribution', 'positive'], ['attnlrp', 'signed']]);
  // Word by word: one span per word, each titled with its word map's score.
  const s5 = await shown(p, 's5');
  assert.deepEqual(s5.tiles[0].spans.map((x) => x.text), s5.result.words);
  const wordMap = s5.result.targets[0].wordMaps.transformer_attribution;
  s5.tiles[0].spans.forEach((x, i) => assert.equal(x.score, Math.fround(wordMap[i])));
  await screenshot(p, 'element-text-five');
});

test('a method switch re-explains the kept text; scale and unit redraw from the kept maps', { skip, timeout: WAIT_MS }, async () => {
  const p = five.page;
  await settled(p, ['s1']);
  const runs = async () => (await p.evaluate(async () => (await import(new URL('vit-relevance/vit-relevance.js', document.baseURI).href)).runtimeStats())).graphRuns;
  await p.evaluate(() => { const el = document.getElementById('s1'); el.method = 'attnlrp'; });
  await p.waitForFunction(() => { const el = document.getElementById('s1'); return el.dataset.state === 'done' && el.result.targets[0].maps.attnlrp; });
  let s = await shown(p, 's1');
  assert.deepEqual(s.tiles.map((t) => [t.method, t.scale]), [['attnlrp', 'signed']]);
  assert.equal(s.result.text, SENTENCE);

  const before = { runs: await runs(), rendered: s.rendered };
  await p.evaluate(() => { window.__kept = document.getElementById('s1').result; document.getElementById('s1').scale = 'positive'; });
  await p.waitForFunction((n) => Number(document.getElementById('s1').dataset.rendered) > n, before.rendered);
  s = await shown(p, 's1');
  assert.equal(s.tiles[0].scale, 'positive');
  await p.evaluate(() => { document.getElementById('s1').unit = 'word'; });
  await p.waitForFunction((n) => Number(document.getElementById('s1').dataset.rendered) > n + 1, before.rendered);
  s = await shown(p, 's1');
  assert.deepEqual(s.tiles[0].spans.map((x) => x.text), s.result.words);
  assert.equal(await p.evaluate(() => document.getElementById('s1').result === window.__kept), true, 'no new explanation');
  assert.equal(await runs(), before.runs, 'no graph ran for a redraw');
  // start-layer="last": the API's maps from the last block, for the same text.
  await p.evaluate(() => { const el = document.getElementById('s5'); window.__kept = el.result; el.setAttribute('start-layer', 'last'); });
  await p.waitForFunction(() => { const el = document.getElementById('s5'); return el.dataset.state === 'done' && el.result !== window.__kept; });
  const last = await p.evaluate(async (model) => {
    const { loadExplainer } = await import(new URL('vit-relevance/vit-relevance.js', document.baseURI).href);
    const explainer = await loadExplainer({ model });
    const el = document.getElementById('s5');
    const want = await explainer.explain({ text: el.result.text }, { startLayer: 'last' });
    explainer.close();
    const values = (r) => [...r.targets[0].maps.transformer_attribution.data];
    return { got: values(el.result), before: values(window.__kept), want: values(want), prop: el.startLayer };
  }, MODEL);
  assert.deepEqual(last.got, last.want, 'the element\'s start-layer="last" is the API\'s startLayer: \'last\'');
  assert.notDeepEqual(last.got, last.before);
  assert.equal(last.prop, 'last');
  // The element's content is its text: new content, a new explanation.
  await p.evaluate(() => { document.getElementById('s2').textContent = 'A dull, lifeless film.'; });
  await p.waitForFunction(() => { const el = document.getElementById('s2'); return el.dataset.state === 'done' && el.result.text === 'A dull, lifeless film.'; });
  assert.equal((await shown(p, 's2')).tiles[0].text, 'A dull, lifeless film.');
  await p.evaluate(() => { const el = document.getElementById('s1'); el.removeAttribute('scale'); el.removeAttribute('unit'); el.method = 'transformer_attribution'; });
  await p.waitForFunction(() => { const el = document.getElementById('s1'); return el.dataset.state === 'done' && el.result.targets[0].maps.transformer_attribution; });
});

test('hover or focus a word for its score: its title, the readout, the arrow keys', { skip, timeout: WAIT_MS }, async () => {
  const p = five.page;
  await settled(p, ['s1']);
  const s = await shown(p, 's1');
  const map = s.result.targets[0].maps.transformer_attribution;
  const spans = p.locator('#s1 .text .t');
  await spans.nth(3).hover();
  const readout = () => p.evaluate(() => document.getElementById('s1').shadowRoot.querySelector('output.score').textContent);
  const title = s.tiles[0].spans[3].title;
  assert.equal(await readout(), title);
  // Token 3 of the text is token 4 of the model ([CLS] first): its name and its score.
  assert.equal(title, `${s.result.tokens[4]}: ${map[4].toPrecision(4)}`);
  await spans.nth(0).focus();
  await p.keyboard.press('ArrowRight');
  const focused = await p.evaluate(() => document.getElementById('s1').shadowRoot.activeElement?.textContent);
  assert.equal(focused, s.tiles[0].spans[1].text, 'the arrow key moves to the next token');
  assert.equal(await readout(), s.tiles[0].spans[1].title, 'a focused token says its score');
});

test('docs/embed.md\'s text snippet as written: the elements, and the iframe route with ?text=', { skip, timeout: WAIT_MS }, async () => {
  const { page: p, errors } = await openPage(browser, `${site.root}docs.html`);
  try {
    await settled(p);
    const states = await p.$$eval('vit-relevance', (els) => els.map((e) => [e.dataset.state, e.shadowRoot.querySelector('figcaption').textContent]));
    assert.deepEqual(states.map(([state]) => state), ['done', 'done'], JSON.stringify(states));
    await p.waitForFunction(() => window.__messages.some((m) => m?.type === 'explained'));
    const explained = await p.evaluate(() => window.__messages.find((m) => m.type === 'explained').result);
    assert.equal(explained.text, 'A gripping, beautifully shot film.');
    assert.deepEqual(Object.keys(explained.targets[0].maps), ['attnlrp']);
    const frame = p.frameLocator('iframe');
    await frame.locator('vit-relevance[data-state="done"]').waitFor();
    assert.equal(await frame.locator('.text').textContent(), 'A gripping, beautifully shot film.');
    assert.ok(await frame.locator('.text .t').count() > 3, 'the frame draws the coloured text');
    // The snippet's iframe-parent.js gives the frame its content's height.
    await p.waitForFunction(() => {
      const size = window.__messages.filter((m) => m?.type === 'size').at(-1);
      return size && Math.round(document.querySelector('iframe').getBoundingClientRect().height) === size.height;
    });
    assert.deepEqual(errors, []);
    await screenshot(p, 'element-text-docs');
  } finally {
    await p.context().close();
  }
});

test('a long text wraps and stays readable at 390 px', { skip, timeout: WAIT_MS }, async () => {
  const { page: p } = await openPage(browser, `${site.root}narrow.html`, { width: 390, height: 800 }, { device: { isMobile: true, hasTouch: true } });
  try {
    await settled(p);
    const m = await p.evaluate(() => {
      const el = document.getElementById('long');
      const box = el.getBoundingClientRect();
      const texts = [...el.shadowRoot.querySelectorAll('.text')];
      const spans = [...el.shadowRoot.querySelectorAll('.text .t')].map((s) => s.getBoundingClientRect());
      return {
        state: el.dataset.state, scrollWidth: document.documentElement.scrollWidth, left: box.left, right: box.right,
        lines: texts.map((t) => t.getBoundingClientRect().height / parseFloat(getComputedStyle(t).lineHeight)),
        fontSize: parseFloat(getComputedStyle(texts[0]).fontSize),
        outside: spans.filter((r) => r.left < box.left - 0.5 || r.right > box.right + 0.5).length,
      };
    });
    assert.equal(m.state, 'done');
    assert.ok(m.scrollWidth <= 390, `no sideways scrolling (page ${m.scrollWidth} px wide)`);
    assert.ok(m.left >= 0 && m.right <= 390, `the element fits: ${m.left}–${m.right}`);
    assert.equal(m.outside, 0, 'no token runs past the element, the long link included');
    assert.ok(m.lines.every((n) => n >= 8), `the text wraps onto many lines: ${m.lines.map((n) => n.toFixed(1))}`);
    assert.ok(m.fontSize >= 14, `readable: ${m.fontSize} px`);
    await screenshot(p, 'element-text-390');
  } finally {
    await p.context().close();
  }
});

test('hostile texts: HTML shows as text; a 1 MB text is refused in one line, nothing downloaded', { skip, timeout: WAIT_MS }, async () => {
  const hostile = await openPage(browser, `${site.root}hostile.html`);
  try {
    await settled(hostile.page);
    const got = await hostile.page.evaluate(() => {
      const root = document.getElementById('html').shadowRoot;
      return { text: root.querySelector('.text').textContent, markup: root.querySelectorAll('.text img, .text b').length, pwned: window.__pwned ?? null };
    });
    assert.equal(got.text, HOSTILE_TEXT, 'the text as typed, markup included');
    assert.equal(got.markup, 0, 'no element made of the text');
    assert.equal(got.pwned, null, 'no script of the text ran');
  } finally {
    await hostile.context.close();
  }

  const huge = await openPage(browser, `${site.root}huge.html`);
  const p = huge.page;
  try {
    const MB = 1 << 20;
    await p.evaluate(([n, model]) => {
      const el = Object.assign(document.createElement('vit-relevance'), { id: 'huge', model, loading: 'eager', text: 'word '.repeat(n / 5) });
      document.body.prepend(el);
    }, [MB, MODEL]);
    await settled(p, ['huge']);
    const caption = await p.evaluate(() => document.getElementById('huge').shadowRoot.querySelector('figcaption').textContent);
    assert.equal(await p.evaluate(() => document.getElementById('huge').dataset.state), 'error');
    assert.match(caption, /^the text is 1,048,575 characters long: an element explains at most 100,000 /);
    assert.equal(caption.split('\n').length, 1);
    // The iframe route: ?text= of 1 MB, refused before its element exists. Node's server
    // answers 431 to a request line past 16 KB (most hosts cap URLs at 8–16 KB, before
    // embed.html runs); embed.html comes here as a host that takes long URLs would serve it.
    await huge.context.route(/\/embed\.html\?/, async (route) => route.fulfill({ response: await route.fetch({ url: `${site.url}embed.html` }) }));
    await p.evaluate((n) => { document.getElementById('frame').src = `vit-relevance/embed.html?model=${encodeURIComponent('text-models/x/')}&text=${'a'.repeat(n)}`; }, MB);
    await p.waitForFunction(() => window.__messages.some((m) => m?.type === 'error'));
    const message = await p.evaluate(() => window.__messages.find((m) => m.type === 'error').message);
    assert.match(message, /^the text is 1,048,576 characters long/);
    assert.equal(message.split('\n').length, 1);
    assert.deepEqual(huge.requests.filter((u) => u.includes('/text-models/')), [], 'nothing of a model was requested');
  } finally {
    await huge.context.close();
  }
});

test('a site built with an exported text model (VITREL_MODELS) carries it whole: model="models/<name>.json" explains', { skip, timeout: WAIT_MS }, async () => {
  const dir = tempDir('element-text-site-');
  let built;
  try {
    // An exported text model's folder: the default text model's files, an index.json listing it alone.
    const models = path.dirname(DEFAULT_TEXT_MODEL);
    const entry = JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.name === NAME);
    const folder = path.join(dir, NAME);
    mkdirSync(folder);
    for (const f of siteFiles(entry)) symlinkSync(path.join(models, f), path.join(folder, f));
    writeFileSync(path.join(folder, 'index.json'), JSON.stringify({ models: [entry] }));
    const root = path.join(dir, 'site');
    // The built-in models left out (an empty folder): the site carries the default text model itself.
    const none = path.join(dir, 'none');
    mkdirSync(none);
    await buildSite({ ...paths, site: root, models: none }, { models: folder });
    assert.ok(existsSync(path.join(root, 'models', entry.vocab)), 'the site carries its vocabulary');
    const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>built</title><link rel="icon" href="data:,">
<script type="module" src="vit-relevance-element.js"></script></head><body>
<vit-relevance id="t" model="models/${entry.metadata}" text="${SENTENCE}" loading="eager"></vit-relevance></body></html>`;
    built = await startSite({ root, build: false, overrides: { '/text.html': { body, type: 'text/html' } } });
    const { page: p, context } = await openPage(browser, `${built.url}text.html`);
    try {
      await settled(p);
      const s = await shown(p, 't');
      assert.equal(s.state, 'done', s.caption);
      assert.equal(s.tiles[0].text, SENTENCE);
    } finally {
      await context.close();
    }
  } finally {
    await built?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
