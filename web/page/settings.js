// The method and display settings: the method (with its help and the start layer), the
// colormap, threshold, scale, opacity, display and frame, and the view tabs.
import { methodHelp, startLayerState } from '../lib/method-help.js';
import { contrastBlocker } from 'vit-relevance/runtime/explain-request.js';
import { $, state } from './state.js';
import { method, viewMethods } from './targets.js';
import { ensureMaps, attribution } from './analysis.js';
import { drawViews, drawLegend } from './views.js';

const tabs = () => [...document.querySelectorAll('[role="tab"]')];
export const viewNames = () => tabs().map((t) => t.dataset.view);

export function fillMethods() {
  const select = $('method');
  select.replaceChildren(...state.methods.map((m) => new Option(method(m).name, m)));
  if (!state.methods.includes(state.method)) state.method = state.methods[0];
  select.value = state.method;
  showMethodHelp();
  markContrastMethods();
}

// In contrastive mode the methods that cannot contrast are disabled, with the reason.
export function markContrastMethods() {
  for (const option of $('method').options) {
    const why = state.contrastive ? contrastBlocker(method(option.value)) : null;
    option.disabled = Boolean(why) && option.value !== state.method;
    option.title = why ?? '';
  }
}

// The chosen method's one-line description and paper, from the registry.
function showMethodHelp() {
  $('method-help').replaceChildren(methodHelp(method(state.method)));
  showStartLayer();
}

function showStartLayer() {
  if (!state.methods.length) return;
  const { disabled, reason } = startLayerState(viewMethods().map(method));
  $('start-layer').disabled = disabled;
  $('start-layer-reason').textContent = reason;
}

function showOpacity() { $('opacity-out').textContent = `${Math.round(state.opacity * 100)}%`; }

// The controls show the state (after a link has set it).
export function showSettings() {
  $('colormap').value = state.colormap;
  drawLegend();
  $('threshold').value = state.threshold;
  $('scale').value = state.scale;
  $('opacity').value = String(state.opacity);
  showOpacity();
  $('start-layer').value = String(state.startLayer);
  $('start-layer-out').textContent = String(state.startLayer);
  for (const name of ['display', 'frame']) {
    for (const r of document.querySelectorAll(`input[name="${name}"]`)) r.checked = r.value === state[name];
  }
  if (state.methods.includes(state.method)) {
    $('method').value = state.method;
    showMethodHelp();
  }
  selectView(state.view);
}

function selectView(view) {
  state.view = view;
  for (const t of tabs()) {
    const on = t.dataset.view === view;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
  showStartLayer();
  ensureMaps();
  drawViews();
}

export function bindSettings() {
  $('method').addEventListener('change', (e) => { state.method = e.target.value; showMethodHelp(); ensureMaps(); drawViews(); });
  $('colormap').addEventListener('change', (e) => { state.colormap = e.target.value; drawLegend(); drawViews(); attribution.render(); });
  $('threshold').addEventListener('change', (e) => { state.threshold = e.target.value; drawViews(); });
  $('scale').addEventListener('change', (e) => { state.scale = e.target.value; drawViews(); });
  $('opacity').addEventListener('input', (e) => {
    state.opacity = Number(e.target.value);
    showOpacity();
    drawViews();
  });
  $('start-layer').addEventListener('change', (e) => { state.startLayer = Number(e.target.value); ensureMaps(); });
  $('start-layer').addEventListener('input', (e) => { $('start-layer-out').textContent = e.target.value; });
  for (const name of ['display', 'frame']) {
    for (const r of document.querySelectorAll(`input[name="${name}"]`)) {
      r.addEventListener('change', () => { state[name] = r.value; drawViews(); });
    }
  }
  // Tabs: arrow keys move between them (WAI-ARIA tabs pattern).
  const all = tabs();
  for (const t of all) {
    t.addEventListener('click', () => selectView(t.dataset.view));
    t.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = all[(all.indexOf(t) + step + all.length) % all.length];
      next.focus();
      selectView(next.dataset.view);
    });
  }
}
