// The iframe route, embed.html?src=…&target=…&method=…: one <vit-relevance> with the
// element's options as query parameters, for hosts that allow iframes but no scripts.
// It tells its parent its height ({ source: 'vit-relevance', type: 'size', height }) and
// its explanation ({ type: 'explained', result }), by postMessage.
import { VitRelevanceElement } from './vit-relevance-element.js';

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
if (params.has('src')) element.setAttribute('src', new URL(params.get('src'), photoBase()).href);
if (params.has('model')) element.setAttribute('model', new URL(params.get('model'), document.baseURI).href);
document.body.append(element);

const post = (message) => { if (window.parent !== window) window.parent.postMessage({ source: 'vit-relevance', ...message }, '*'); };
let lastHeight = 0;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height !== lastHeight) post({ type: 'size', height: (lastHeight = height) });
}).observe(document.body);
element.addEventListener('explained', (e) => post({ type: 'explained', result: e.detail }));
element.addEventListener('error', (e) => post({ type: 'error', message: e.detail.message }));
