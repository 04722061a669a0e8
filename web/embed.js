// The iframe route, embed.html?src=…&class-id=…&method=…: one <vit-relevance> with the
// element's options as query parameters, for hosts that allow iframes but no scripts.
// It tells its parent its height ({ source: 'vit-relevance', type: 'size', height }) and
// its explanation ({ type: 'explained', result }), by postMessage. A text model's text is
// ?text=…: data, never fetched, refused in one line when longer than an element takes.
import { VitRelevanceElement } from './vit-relevance-element.js';
import { loadExplainer } from './vit-relevance.js';
import { textProblem } from './element/text-source.js';

const params = new URLSearchParams(location.search);
const element = document.createElement('vit-relevance');
for (const name of VitRelevanceElement.observedAttributes) {
  if (params.has(name)) element.setAttribute(name, params.get(name));
}
// The frame decides when it loads (<iframe loading="lazy">): the element starts at once.
if (!params.has('loading')) element.setAttribute('loading', 'eager');

// A relative photo URL means the embedding page's, when that page is on this origin.
function photoBase() {
  try {
    if (window.parent !== window && window.parent.location.origin === location.origin) return window.parent.location.href;
  } catch {
    // another origin: its location cannot be read
  }
  return document.baseURI;
}
// A model or photo from another origin is fetched only where this site lists that origin
// (the meta that the build fills from VITREL_MODEL_ORIGINS): otherwise anyone could link to
// this page and run a model and labels of their choosing under this site's name, or have
// its visitors' browsers request any address (another site, a device on their network).
// A data: photo is no request.
function refusal(what, url) {
  if (url.origin === location.origin || url.protocol === 'data:') return null;
  const listed = document.querySelector('meta[name="vit-relevance-model-origins"]')?.content.split(/\s+/).filter(Boolean) ?? [];
  if (listed.includes(url.origin)) return null;
  return `${what} ${url.href} is not on this site (${location.origin}) and its origin is not one the site allows `
    + `(${listed.length ? listed.join(', ') : 'none'}): the site adds it with VITREL_MODEL_ORIGINS when it builds (docs/hosting.md)`;
}

const post = (message) => { if (window.parent !== window) window.parent.postMessage({ source: 'vit-relevance', ...message }, '*'); };

// A value that is no URL at all is the element's to report (it names the photo).
const urlOf = (text, base) => { try { return new URL(text, base); } catch { return null; } };
const photo = params.has('src') ? urlOf(params.get('src'), photoBase()) : null;
const model = params.has('model') ? new URL(params.get('model'), document.baseURI) : null;
const text = params.get('text');
const refused = (model && refusal('model', model)) || (photo && refusal('photo', photo)) || (text !== null && textProblem(text));
if (refused) {
  const p = document.createElement('p');
  p.className = 'error';
  p.setAttribute('role', 'alert');
  p.textContent = refused;
  document.body.append(p);
  post({ type: 'error', message: refused });
} else {
  if (params.has('src')) element.setAttribute('src', photo?.href ?? params.get('src'));
  if (model) element.setAttribute('model', model.href);
  document.body.append(element);
}
// The Worker embed.html's start-worker.js started compiles WebAssembly's onnxruntime while
// this script loads. It loads the element's model where the element starts at once on that
// backend: the element's own load, with the same model and backend, is that same load
// (web/api/shared-runtime.js), and its failure is the element's to show. Otherwise it stops:
// a refused model, an element that waits to be seen, or another backend (whose load starts
// a Worker named after it, which compiles that backend's onnxruntime at once).
const early = window.__vitrelWorker ?? undefined;
if (!refused && element.loading === 'eager' && element.backend === 'wasm') {
  loadExplainer({ model: element.model ?? undefined, backend: element.backend, worker: early }).catch(() => {});
} else {
  early?.terminate();
}
let lastHeight = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height !== lastHeight) post({ type: 'size', height: (lastHeight = height) });
}).observe(document.body);
element.addEventListener('explained', (e) => post({ type: 'explained', result: e.detail }));
element.addEventListener('error', (e) => post({ type: 'error', message: e.detail.message }));
