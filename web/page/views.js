// The views: single, grid (every method), pair (two classes) and compare (two photos),
// with their captions, the notices under them and the colour legend, drawn from the state
// when what they show changes.
import { legendImage } from '../lib/render.js';
import { CONSTANT_NOTE, unlikelyNote } from 'vit-relevance/runtime/confidence.js';
import { methodHelp } from './lib/method-help.js';
import { framingNote } from './lib/framing.js';
import { scaleOf, mapCaption, legendWords } from './lib/scale-view.js';
import { ATTATTR } from './lib/attribution-panel.js';
import { $, page, state, timeline } from './state.js';
import { primaryTarget, viewTargets, targetLabel, targetKey, method, contrastNote, standing, mapOf } from './targets.js';
import { tile, paint, forgetHeat } from './tiles.js';

// The single view's canvas, long side in pixels: twice its width on a wide screen; a
// 4096 px canvas cost the main thread hundreds of ms per redraw (issue 13).
const SINGLE_SIDE = 2048;

const captionOf = (canvas) => mapCaption(state.core, canvas.__binding.map, canvas.__binding.scale);

// What the views draw from: a change of any redraws them ('maps': the maps to show may have
// changed; the classes and the start layer are drawn once their maps are there).
const DRAWN_FROM = ['photo', 'maps', 'method', 'view', 'colormap', 'threshold', 'scale', 'opacity', 'display', 'frame', 'compare'];

export function bindViews() {
  // Drawn maps go stale with their photo's maps (a new photo, model or attattr map): forgotten
  // before the views redraw.
  page.subscribe(['photo', 'explainer', 'attattrMap'], forgetHeat);
  page.subscribe(['photo'], () => {
    const photo = state.photo;
    if (photo) $('main-caption').textContent = `${photo.name} · ${photo.width}×${photo.height}${photo.note}`;
  });
  page.subscribe(DRAWN_FROM, drawViews);
  page.subscribe(['core', 'colormap', 'scale'], drawLegend);
}

function drawViews() {
  const photo = state.photo;
  page.set({ drawn: null }); // while the views redraw, nothing is there to save
  if (!photo || state.kind === 'text') return; // a text model's views: web/page/text-view.js
  if (state.view === 'single') drawSingle();
  else if (state.view === 'grid') drawGrid();
  else if (state.view === 'pair') {
    $('pair').replaceChildren(...viewTargets().map((t) => tile(t, state.method, targetLabel(t), method(state.method).name, 640)));
  } else {
    drawCompare();
  }
  // Each drawn map says what it shows (scale, range, share negative); one that cannot be
  // drawn for a contrast says why.
  for (const fig of document.querySelectorAll(`#view-${state.view} figure.tile`)) {
    const canvas = fig.querySelector('canvas');
    const text = canvas.dataset.rendered === 'heat' ? captionOf(canvas) : contrastNote(canvas.dataset.method) ?? '';
    if (text) fig.querySelector('figcaption .sub').append(` · ${text}`);
  }
  drawLegend();
  const drawnAny = document.querySelector(`#view-${state.view} canvas[data-rendered="heat"]`);
  page.set({ drawn: { view: state.view, at: performance.now() } }); // the downloads save what is drawn
  if (drawnAny && !timeline.firstHeatmap) timeline.firstHeatmap = performance.now();
  if (drawnAny) timeline.lastRender = { at: performance.now(), target: drawnAny.dataset.target, view: state.view };
  showNotices();
  document.body.dataset.renders = String(Number(document.body.dataset.renders ?? 0) + 1);
}

function drawSingle() {
  const main = $('main-canvas');
  const t = state.classId === null ? null : primaryTarget();
  const drawn = paint(main, t, state.method, SINGLE_SIDE);
  const why = state.classId === null ? null : contrastNote(state.method);
  const m = method(state.method);
  if (drawn) {
    $('main-caption').textContent = `${m.name} · ${targetLabel(t)}`
      + (m.startLayer ? ` · start layer ${state.startLayer}` : '')
      + (main.dataset.constant === 'true' ? ` · ${CONSTANT_NOTE}` : '') + state.photo.note
      + ` · ${captionOf(main)}${why ? ` · ${why}` : ''}`;
  } else if (why) {
    $('main-caption').textContent = why;
  }
}

function drawGrid() {
  const t = state.classId === null ? null : primaryTarget();
  $('grid').replaceChildren(...state.methods.map((m) => {
    const pending = m === ATTATTR && t && !mapOf(t, m) ? ' · every block in the Attribution panel first' : '';
    const fig = tile(t, m, method(m).shortName, t ? `${targetLabel(t)}${pending}` : '', 320);
    const note = Object.assign(document.createElement('span'), { className: 'method-note' });
    note.append(methodHelp(method(m)));
    fig.querySelector('figcaption').append(note);
    return fig;
  }));
}

// The compare view: the same class and method on the first photo and a second one.
function drawCompare() {
  const t = state.classId === null ? null : primaryTarget();
  // Each photo with its own probability of the class.
  const sub = (logits) => (t ? `${method(state.method).name} · ${targetLabel(t, logits)}` : '');
  const figs = [tile(t, state.method, state.photo.name, sub(state.logits), 640)];
  const compare = state.compare;
  if (compare.photo) {
    figs.push(tile(t, state.method, compare.photo.name, sub(compare.logits), 640, compare.view));
    // The first photo's unlikely class has its note above the views; the second's is here.
    const s = t && t.contrast === undefined && compare.logits ? standing(t.class, compare.logits) : null;
    const note = s ? unlikelyNote(state.metadata.labels[t.class], s) : '';
    if (note) figs.push(Object.assign(document.createElement('p'), { className: 'notice compare-unlikely', textContent: `${compare.photo.name}: ${note}` }));
    if (t && state.metadata) {
      compare.ensure({ target: t, targetKey: targetKey(t), method: state.method, startLayer: state.startLayer, crop: state.crop });
    }
  } else {
    figs.push(Object.assign(document.createElement('p'), { className: 'muted', textContent: 'Choose a second photo above: a sample or one of yours.' }));
  }
  $('compare').replaceChildren(...figs);
}

// The notices under the views: what part of the photo the model saw, and any constant map.
function showNotices() {
  const input = state.metadata?.architecture.image_size ?? [224, 224];
  $('framing-note').textContent = state.photo ? framingNote(state.photo, state.region, state.crop, state.frame, input) : '';
  const flat = [...document.querySelectorAll(`#view-${state.view} canvas[data-constant="true"]`)];
  $('map-notice').hidden = !flat.length;
  $('map-notice').textContent = flat.length
    ? `${flat.map((c) => method(c.dataset.method).name).filter((n, i, a) => a.indexOf(n) === i).join(', ')}: the ${CONSTANT_NOTE}`
      + ' (every value is equal, so no colour is drawn).'
    : '';
}

function drawLegend() {
  const core = state.core;
  if (!core) return;
  const c = $('legend');
  const strip = new OffscreenCanvas(256, 1);
  const scale = state.metadata && state.classId !== null ? scaleOf(state, primaryTarget(), state.method) : state.scale === 'signed' ? 'signed' : 'positive';
  strip.getContext('2d').putImageData(legendImage(core, state.colormap, scale), 0, 0);
  // The signed scale draws red–blue whatever the colormap: the select says so, not "jet".
  $('colormap').disabled = scale === 'signed';
  $('colormap-note').textContent = scale === 'signed' ? '(red–blue: the signed scale)' : '';
  // The single view's map gives the ends their values.
  const shown = state.view === 'single' ? $('main-canvas').__binding : null;
  const [low, mid, high] = legendWords(core, scale, shown?.scale === scale ? shown.map : null);
  const words = c.parentElement.querySelectorAll('.legend-scale span');
  [words[0].textContent, words[1].textContent, words[2].textContent] = [low, mid, high];
  const ctx = c.getContext('2d');
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(strip, 0, 0, c.width, c.height);
}
