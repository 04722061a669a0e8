// The readout of the patch under the pointer over any canvas of the views (each tile's
// canvas.__binding: web/page/tiles.js): on hover, and on a tap where there is no hover (phones).
import { cellAt } from '../lib/overlay.js';
import { $ } from './state.js';
import { method } from './targets.js';

function showReadout(e) {
  const canvas = e.target instanceof HTMLCanvasElement ? e.target : null;
  const b = canvas?.__binding;
  if (!b || !b.region) return;
  const cell = cellAt(e, canvas, b.photo, b.region, b.map, canvas.dataset.frame);
  let lo = Infinity; let hi = -Infinity;
  for (const v of b.map.data) { if (v < lo) lo = v; if (v > hi) hi = v; }
  $('hover-readout').textContent = cell
    ? `${method(b.method).shortName} · ${b.map.shape[0] > 64 ? 'pixel' : 'patch'} (row ${cell.row}, col ${cell.col}): `
      + `relevance ${cell.value.toPrecision(4)} (${Math.round(((cell.value - lo) / (hi - lo || 1)) * 100)}% of the map's range)`
    : 'Outside the region the model saw.';
}

export function bindReadout() {
  for (const type of ['pointermove', 'pointerdown']) document.querySelector('.stage').addEventListener(type, showReadout);
}
