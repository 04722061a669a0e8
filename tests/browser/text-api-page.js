// A page of the built site with the browser API loaded (window.__api) and the default text
// model served beside the site, its files under text-models/<name>/, for the
// browser tests and the text benchmark, as a docs author hosts an exported text model (the
// site carries it too, under models/, for the page's model picker).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';
import { startSite, launch, openPage, WAIT_MS } from './harness.js';

// The default text model's name (its files' stem in build/models) and its folder's URL,
// relative to the site.
const NAME = path.basename(DEFAULT_TEXT_MODEL, '.onnx');
export const TEXT_MODEL_URL = `text-models/${NAME}/`;

// startSite's overrides: the graphs, metadata and vocabulary of the model's build/models/index.json entry, and an
// index.json listing it alone (an exported text model's folder), under `prefix`.
export function textModelRoutes(prefix = '/') {
  const models = path.dirname(DEFAULT_TEXT_MODEL);
  const entry = JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.name === NAME);
  // the explainer graph's and, over the weights file they share, the family graphs (split)
  const shared = entry.split ? [entry.split.weights, ...Object.values(entry.split.families ?? {})] : [];
  const files = [entry.metadata, entry.onnx, entry.vocab, entry.forward_onnx, ...shared].filter(Boolean);
  const route = (name, body) => [`${prefix}${TEXT_MODEL_URL}${name}`, { body, type: name.endsWith('.json') ? 'application/json' : 'application/octet-stream' }];
  return Object.fromEntries([
    ...files.map((f) => route(f, readFileSync(path.join(models, f)))),
    route('index.json', JSON.stringify({ models: [entry] })),
  ]);
}

const API_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>text api</title></head><body>
<script type="module">window.__api = await import(new URL('vit-relevance.js', document.baseURI).href);</script></body></html>`;

// → { page (its API loaded), close() }.
export async function openApiPage() {
  const site = await startSite({ overrides: { '/api.html': { body: API_PAGE, type: 'text/html' }, ...textModelRoutes() } });
  const browser = await launch();
  const close = async () => {
    await browser.close();
    await site.close();
  };
  try {
    const { page } = await openPage(browser, `${site.url}api.html`);
    await page.waitForFunction(() => window.__api, null, { timeout: WAIT_MS });
    return { page, close };
  } catch (err) {
    await close();
    throw err;
  }
}
