// The method and display settings: the method (with its help and the start layer), the
// colormap, threshold, scale, opacity, display and frame, and the view tabs, shown from the
// state; a choice is an intent.
import { methodHelp, startLayerState } from './lib/method-help.js';
import { contrastBlocker } from 'vit-relevance/runtime/explain-request.js';
import { $, page, state } from './state.js';
import { method, viewMethods } from './targets.js';

const tabs = () => [...document.querySelectorAll('[role="tab"]')];
const choose = (values) => page.dispatch('settings', values);

function fillMethods() {
  const select = $('method');
  select.replaceChildren(...state.methods.map((m) => new Option(method(m).name, m)));
  select.value = state.method;
  $('start-layer').max = String(state.metadata.architecture.blocks - 1);
}

// In contrastive mode the methods that cannot contrast are disabled, with the reason.
function markContrastMethods() {
  for (const option of $('method').options) {
    const why = state.contrastive ? contrastBlocker(method(option.value)) : null;
    option.disabled = Boolean(why) && option.value !== state.method;
    option.title = why ?? '';
  }
}

// The chosen method's one-line description and paper, from the registry.
function showMethod() {
  if (!state.methods.includes(state.method)) return;
  $('method').value = state.method;
  $('method-help').replaceChildren(methodHelp(method(state.method)));
}

function showStartLayer() {
  $('start-layer').value = String(state.startLayer);
  $('start-layer-out').textContent = String(state.startLayer);
  if (!state.methods.length) return;
  const { disabled, reason } = startLayerState(viewMethods().map(method));
  $('start-layer').disabled = disabled;
  $('start-layer-reason').textContent = reason;
}

function showView() {
  for (const t of tabs()) {
    const on = t.dataset.view === state.view;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    $(t.getAttribute('aria-controls')).hidden = !on;
  }
}

// Each control shows its part of the state when it changes (a link, a model, a choice).
const SHOWS = [
  [['methods'], () => state.metadata && fillMethods()],
  [['methods', 'method'], showMethod],
  [['methods', 'method', 'contrastive'], markContrastMethods],
  [['methods', 'method', 'view', 'startLayer'], showStartLayer],
  [['view'], showView],
  [['colormap'], () => { $('colormap').value = state.colormap; }],
  [['threshold'], () => { $('threshold').value = state.threshold; }],
  [['scale'], () => { $('scale').value = state.scale; }],
  [['opacity'], () => {
    $('opacity').value = String(state.opacity);
    $('opacity-out').textContent = `${Math.round(state.opacity * 100)}%`;
  }],
  [['display', 'frame'], () => {
    for (const name of ['display', 'frame']) {
      for (const r of document.querySelectorAll(`input[name="${name}"]`)) r.checked = r.value === state[name];
    }
  }],
];

export function bindSettings() {
  for (const [keys, show] of SHOWS) page.subscribe(keys, show);
  $('method').addEventListener('change', (e) => choose({ method: e.target.value }));
  $('colormap').addEventListener('change', (e) => choose({ colormap: e.target.value }));
  $('threshold').addEventListener('change', (e) => choose({ threshold: e.target.value }));
  $('scale').addEventListener('change', (e) => choose({ scale: e.target.value }));
  $('opacity').addEventListener('input', (e) => choose({ opacity: Number(e.target.value) }));
  $('start-layer').addEventListener('change', (e) => choose({ startLayer: Number(e.target.value) }));
  $('start-layer').addEventListener('input', (e) => { $('start-layer-out').textContent = e.target.value; });
  for (const name of ['display', 'frame']) {
    for (const r of document.querySelectorAll(`input[name="${name}"]`)) {
      r.addEventListener('change', () => choose({ [name]: r.value }));
    }
  }
  // Tabs: arrow keys move between them (WAI-ARIA tabs pattern).
  const all = tabs();
  for (const t of all) {
    t.addEventListener('click', () => choose({ view: t.dataset.view }));
    t.addEventListener('keydown', (e) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!step) return;
      const next = all[(all.indexOf(t) + step + all.length) % all.length];
      next.focus();
      choose({ view: next.dataset.view });
    });
  }
}
