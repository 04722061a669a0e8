// The downloads: the overlay, the map and its JSON of the chosen tile (else the view's
// first), and every tile of the view in one labelled PNG, offered once the views are drawn.
import { downloadCanvas, downloadMapPng, copyJson, slug } from './lib/exports.js';
import { contactSheet } from './lib/contact-sheet.js';
import { $, page, state, showError } from './state.js';
import { targetLabel } from './targets.js';

const BUTTONS = ['dl-overlay', 'dl-map', 'copy-json', 'dl-all'];

function currentBinding() {
  const drawn = [...document.querySelectorAll(`#view-${state.view} canvas[data-rendered="heat"]`)];
  const canvas = drawn.find((c) => c.dataset.tile === state.chosenTile) ?? drawn[0];
  return canvas && { canvas, ...canvas.__binding };
}

// The buttons act once a map is drawn (not while the views redraw); views of several tiles
// say which tile the single downloads save (the chosen tile: state.chosenTile), and that
// tile is marked.
function showDownloadScope() {
  if (!state.drawn) {
    for (const id of BUTTONS) $(id).disabled = true;
    return;
  }
  const b = currentBinding();
  for (const id of BUTTONS) $(id).disabled = !b;
  const several = document.querySelectorAll(`#view-${state.view} canvas`).length > 1;
  for (const fig of document.querySelectorAll(`#view-${state.view} .tile`)) {
    if (several && fig.contains(b?.canvas)) fig.setAttribute('aria-current', 'true');
    else fig.removeAttribute('aria-current');
  }
  const which = b?.canvas.dataset.tile === state.chosenTile ? 'the chosen tile' : 'the first tile';
  $('dl-scope').textContent = b && several
    ? `Overlay, map and JSON save ${which} (${b.canvas.dataset.caption} · ${b.canvas.dataset.sub}); click a tile to choose another. `
      + '“Download all” saves every tile in one PNG.'
    : '';
  $('dl-all').hidden = state.view === 'single';
}

function fileStem(b) {
  return `${slug(b.photo.name.replace(/\.[^.]+$/, ''))}-${slug(targetLabel(b.target).replace(/ [\d.]+%( \(rank \d+\))?$/, ''))}-${b.method}`;
}

async function act(fn) {
  try { $('action-status').textContent = (await fn()) ?? ''; } catch (err) { showError(err.message); }
}

export function bindDownloads() {
  page.subscribe(['drawn', 'chosenTile'], showDownloadScope);
  $('dl-overlay').addEventListener('click', () => act(async () => {
    const b = currentBinding();
    await downloadCanvas(b.canvas, `${fileStem(b)}-overlay.png`);
    return 'overlay saved';
  }));
  $('dl-map').addEventListener('click', () => act(async () => {
    const b = currentBinding();
    await downloadMapPng(b.map, `${fileStem(b)}-map.png`, state.core.scaled(b.map, b.scale));
    return 'map saved';
  }));
  $('copy-json').addEventListener('click', () => act(() => {
    const b = currentBinding();
    return copyJson({
      model: state.model.name, photo: b.photo.name, method: b.method,
      target: b.target.contrast === undefined ? { class: b.target.class, label: state.metadata.labels[b.target.class] }
        : { contrast: [b.target.class, b.target.contrast], labels: [state.metadata.labels[b.target.class], state.metadata.labels[b.target.contrast]],
          correlation: b.map.correlation }, // how alike the two classes' own maps are (docs/contrast.md)
      startLayer: state.startLayer, region: b.region, scale: b.scale,
      rows: b.map.shape[0], cols: b.map.shape[1], data: Array.from(b.map.data),
    }, `${fileStem(b)}.json`);
  }));
  // Every tile of the view in one labelled PNG (web/page/lib/contact-sheet.js).
  $('dl-all').addEventListener('click', () => act(async () => {
    const tiles = [...document.querySelectorAll(`#view-${state.view} canvas`)]
      .map((canvas) => ({ canvas, caption: canvas.dataset.caption, sub: canvas.dataset.sub }));
    const title = `${state.model.name} · ${state.photo.name} · ${$(`tab-${state.view}`).textContent}`;
    const sheet = contactSheet(tiles, title, state.view === 'grid' ? 4 : 2);
    await downloadCanvas(sheet, `${slug(state.photo.name.replace(/\.[^.]+$/, ''))}-${state.view}-all.png`);
    return `saved all ${tiles.length} tiles in one PNG`;
  }));
}
