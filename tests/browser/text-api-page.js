// A page of the built site with the browser API loaded (window.__api) and the default text
// model's folder served beside the site, file by file under text-models/<folder>/, for the
// browser tests and the text benchmark: the site itself does not carry the text model (the
// page stays image-only), so a visitor downloads none of it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';
import { startSite, launch, openPage, WAIT_MS } from './harness.js';

// The folder's URL, relative to the site.
export const TEXT_MODEL_URL = `text-models/${path.basename(DEFAULT_TEXT_MODEL)}/`;

// startSite's overrides for every file of the folder.
function textModelRoutes() {
  return Object.fromEntries(readdirSync(DEFAULT_TEXT_MODEL).map((f) => [
    `/${TEXT_MODEL_URL}${f}`,
    { body: readFileSync(path.join(DEFAULT_TEXT_MODEL, f)), type: f.endsWith('.json') ? 'application/json' : 'application/octet-stream' },
  ]));
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
