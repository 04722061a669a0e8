// A text model's views (docs/page.md, "Text"): the text coloured token by token (or word by
// word) with the current method, or every method as one coloured copy of it (the grid),
// drawn by the <vit-relevance> element's own drawing (web/element/text-drawing.js: the
// signed scale where the method or a contrast is, a legend, a word's score on hover or
// focus), the maps' JSON download and the coloured text as a PNG (./lib/text-png.js). The maps shown are always those of the text the
// explanation came back for (`region.text`): while a newer text is explained the last
// drawing stays, marked stale, and is replaced only by the newer text's. What is drawn is
// exposed for tests on #text-view (data-text, data-class, data-contrast, data-method,
// data-view, data-unit) and on the body (data-text-explained).
import { drawText } from '../element/text-drawing.js';
import { downloadCanvas, saveBlob, slug } from './lib/exports.js';
import { textViewCanvas } from './lib/text-png.js';
import { $, page, state } from './state.js';
import { primaryTarget, standing, mapOf, method, contrastNote } from './targets.js';

const DRAWN_FROM = ['kind', 'core', 'text', 'region', 'opened', 'maps', 'view', 'method', 'classId', 'contrastId', 'contrastive', 'scale', 'unit'];

let shown = null; // what was drawn last: { result, methods }, for the download

export function bindTextView() {
  for (const r of document.querySelectorAll('input[name="unit"]')) {
    r.addEventListener('change', () => page.dispatch('settings', { unit: r.value }));
  }
  page.subscribe(['unit'], () => {
    for (const r of document.querySelectorAll('input[name="unit"]')) r.checked = r.value === state.unit;
  });
  page.subscribe(DRAWN_FROM, draw);
  $('text-json').addEventListener('click', download);
  $('text-png').addEventListener('click', downloadPng);
}

// The target drawn, as the element's drawing reads it: its label and standing, and the
// maps of the methods it has (each with its word map).
function targetOf(t, methods) {
  const labels = state.metadata.labels;
  const target = { id: t.class, label: labels[t.class], ...standing(t.class), maps: {}, wordMaps: {} };
  if (t.contrast !== undefined) target.contrast = { id: t.contrast, label: labels[t.contrast], ...standing(t.contrast) };
  for (const m of methods) {
    target.maps[m] = mapOf(t, m);
    target.wordMaps[m] = target.maps[m].words;
  }
  return target;
}

function draw() {
  const view = $('text-view');
  if (state.kind !== 'text') return;
  if (!state.text.trim()) {
    shown = null;
    $('text-json').disabled = $('text-png').disabled = true;
    view.classList.remove('stale');
    view.replaceChildren(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Type or paste a text above: it is explained as you type.' }));
    for (const k of Object.keys(view.dataset)) delete view.dataset[k];
    delete document.body.dataset.textExplained;
    return;
  }
  const opened = state.opened;
  const text = state.region?.text;
  const current = text !== undefined && text === state.text && opened?.text === text && opened.tokens && state.core && state.classId !== null;
  // Until the newer text's maps come, the last drawing stays, marked as the last text's.
  view.classList.toggle('stale', !current);
  if (!current) return;
  const t = primaryTarget();
  const methods = state.view === 'grid' ? state.methods : [state.method];
  const have = methods.filter((m) => mapOf(t, m));
  const blocked = methods.filter((m) => !mapOf(t, m) && contrastNote(m));
  if (have.length + blocked.length < methods.length) return; // the Worker explains them: drawn when they come
  const result = {
    text, tokens: opened.tokens, offsets: opened.offsets, words: opened.words, truncated: opened.truncated,
    targets: [targetOf(t, have)], notes: opened.notice ? [opened.notice] : [],
  };
  const options = { unit: state.unit, scale: state.scale };
  const element = { getAttribute: (name) => options[name] ?? null };
  const { tiles, caption } = have.length ? drawText(state.core, element, { result, explainer: state.explainer }) : { tiles: [], caption: '' };
  const notes = blocked.map((m) => Object.assign(document.createElement('p'), { className: 'notice', textContent: `${method(m).name}: ${contrastNote(m)}` }));
  const cap = Object.assign(document.createElement('p'), { className: 'text-caption', textContent: caption });
  view.replaceChildren(cap, ...tiles, ...notes);
  view.classList.toggle('text-grid', state.view === 'grid');
  Object.assign(view.dataset, {
    text, class: String(t.class), contrast: String(t.contrast ?? ''), method: have.join(','), view: state.view === 'grid' ? 'grid' : 'single', unit: state.unit,
  });
  shown = { result, methods: have };
  $('text-json').disabled = $('text-png').disabled = !have.length;
  document.body.dataset.textExplained = text; // the tests wait on this: the map of this text is drawn
}

// The maps drawn, by token and by word, with what they are of.
function download() {
  if (!shown) return;
  const { result, methods } = shown;
  const [target] = result.targets;
  const json = {
    model: state.model.name, text: result.text, tokens: result.tokens, offsets: result.offsets, words: result.words,
    target: target.contrast ? { class: target.id, label: target.label, contrast: target.contrast.id, contrastLabel: target.contrast.label }
      : { class: target.id, label: target.label, prob: target.prob },
    startLayer: state.startLayer,
    maps: Object.fromEntries(methods.map((m) => [m, { tokens: Array.from(target.maps[m].data), words: Array.from(target.wordMaps[m] ?? []) }])),
  };
  const name = `${slug(result.text.slice(0, 40)) || 'text'}-${slug(target.label)}-${methods.length > 1 ? 'all-methods' : methods[0]}.json`;
  saveBlob(new Blob([JSON.stringify(json)], { type: 'application/json' }), name);
  $('text-json-status').textContent = `saved ${name}`;
}

// The coloured text as drawn (every tile of the grid), its legend and caption, as a PNG.
async function downloadPng() {
  if (!shown) return;
  const { result, methods } = shown;
  const [target] = result.targets;
  const name = `${slug(result.text.slice(0, 40)) || 'text'}-${slug(target.label)}-${methods.length > 1 ? 'all-methods' : methods[0]}.png`;
  await downloadCanvas(textViewCanvas($('text-view'), `${state.model.name} · ${target.label}`), name);
  $('text-json-status').textContent = `saved ${name}`;
}
