// One tile of a view: a canvas with the photo and the heat map of a (target, method), its
// caption, and the binding that hover readouts and downloads read (canvas.__binding); drawn
// by the views (web/page/views.js), which alone import it.
import { heatImage } from '../lib/render.js';
import { drawOverlay } from '../lib/overlay.js';
import { isConstantMap, CONSTANT_NOTE } from 'vit-relevance/runtime/confidence.js';
import { scaleOf } from './lib/scale-view.js';
import { page, state, photoKey } from './state.js';
import { mapKey, targetKey, mapOf } from './targets.js';

// What a tile draws from: the first photo, or the compare view's second.
export const mainView = () => ({ photo: state.photo, region: state.region, maps: state.maps });

const heatCache = new Map();
// Drawn maps go stale with their photo's maps (a new photo, model or attattr map).
export const forgetHeat = () => heatCache.clear();

function heatFor(key, method, map, scale) {
  const k = `${key}|${method}|${state.colormap}|${state.threshold}|${state.display}|${scale}`;
  let img = heatCache.get(k);
  if (!img) {
    img = heatImage(state.core, map, { ...state, scale });
    if (heatCache.size > 200) heatCache.clear();
    heatCache.set(k, img);
  }
  return img;
}

// One figure: canvas + caption, bound to a (target, method) for hover and downloads.
export function tile(target, method, caption, sub, maxSide, view = mainView()) {
  const fig = document.createElement('figure');
  fig.className = 'figure tile';
  const wrap = document.createElement('div');
  wrap.className = 'canvas-wrap';
  const canvas = document.createElement('canvas');
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', `${caption}: ${sub}`);
  wrap.append(canvas);
  const cap = document.createElement('figcaption');
  cap.append(caption);
  const s = document.createElement('span');
  s.className = 'sub';
  s.textContent = sub;
  cap.append(s);
  fig.append(wrap, cap);
  Object.assign(canvas.dataset, { caption, sub }); // for "Download all"
  paint(canvas, target, method, maxSide, view);
  if (canvas.dataset.constant === 'true') s.textContent += ` · ${CONSTANT_NOTE}`;
  // A click (or Enter) chooses the tile the single downloads save.
  canvas.tabIndex = 0;
  const choose = () => page.set({ chosenTile: canvas.dataset.tile });
  canvas.addEventListener('click', choose);
  canvas.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); choose(); }
  });
  return fig;
}

// Draws photo + heat for (target, method) onto a canvas; returns whether a heat map was drawn.
export function paint(canvas, target, method, maxSide, { photo, region, maps: store } = mainView()) {
  const map = target && (store === state.maps ? mapOf(target, method) : store.get(mapKey(target))?.[method]);
  // A constant map has nothing to colour: the photo alone, and the notices say why.
  const constant = isConstantMap(map);
  const scale = scaleOf(state, target, method);
  const heat = map && state.core && !constant ? heatFor(`${photoKey(photo)}|${mapKey(target)}`, method, map, scale) : null;
  drawOverlay(canvas, photo, region, heat, {
    opacity: state.opacity, smooth: state.display === 'smooth' || map?.shape[0] > 64, maxSide, frame: state.frame,
  });
  canvas.dataset.frame = state.frame;
  canvas.dataset.constant = String(constant);
  canvas.dataset.target = target ? targetKey(target) : '';
  canvas.dataset.method = method;
  canvas.dataset.startLayer = String(state.startLayer);
  canvas.dataset.region = region ? `${region.x},${region.y},${region.width},${region.height}` : ''; // what the model saw
  canvas.dataset.tile = `${photoKey(photo)}|${canvas.dataset.target}|${method}`;
  canvas.dataset.rendered = heat || (map && constant) ? 'heat' : 'photo';
  canvas.dataset.scale = scale;
  canvas.__binding = map ? { target, method, map, scale, photo, region } : null;
  return canvas.dataset.rendered === 'heat';
}
