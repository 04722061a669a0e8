// The class controls: the top-5 buttons, the class A and B searches, the contrastive
// switch, and the explained class's standing, shown from the state; a choice is an intent.
import { ClassSearch } from './lib/class-search.js';
import { reveal } from './lib/reveal.js';
import { pct, standingText, unlikelyNote } from 'vit-relevance/runtime/confidence.js';
import { $, page, state, timeline } from './state.js';
import { targetKey, primaryTarget, standing } from './targets.js';

let searchA = null;
let searchB = null;

export function bindClasses() {
  searchA = new ClassSearch($('class-a'), $('class-a-list'), pickA);
  searchB = new ClassSearch($('class-b'), $('class-b-list'), (id) => page.dispatch('settings', { contrastId: id }));
  $('contrastive').addEventListener('change', (e) => page.dispatch('settings', { contrastive: e.target.checked }));
  // A new model's classes for the searches.
  page.subscribe(['metadata'], () => {
    if (!state.metadata) return;
    searchA.setMetadata(state.metadata);
    searchB.setMetadata(state.metadata);
  });
  page.subscribe(['metadata', 'photo', 'kind', 'top5', 'logits', 'classId', 'contrastId', 'contrastive', 'prediction'], (changed) => {
    if (!state.metadata && state.top5.length) return; // another model loads: its labels are not there yet
    showClasses();
    // The classes, the map under them (not while a text is typed: the box stays in view).
    if (changed.has('prediction') && state.kind !== 'text') reveal(document.querySelector('.picker'));
  });
  // The views show the standing of the class they explain.
  page.subscribe(['maps'], () => state.metadata && showStanding());
}

// The controls show the classes of the state (after a prediction or a link).
function showClasses() {
  $('contrastive').checked = state.contrastive;
  searchA.show(state.classId);
  searchB.show(state.contrastId);
  markClasses();
  showTop5();
}

// The classes explained, as data-class and data-class-b on the body.
function markClasses() {
  document.body.dataset.class = state.classId ?? '';
  document.body.dataset.classB = state.contrastId ?? '';
}

function pickA(id) {
  const contrastId = state.contrastId === id ? state.top5.find((t) => t.id !== id)?.id ?? state.contrastId : state.contrastId;
  page.dispatch('settings', { classId: id, contrastId });
  timeline.classChosen = { at: performance.now(), target: targetKey(primaryTarget()) };
}

// The explained class's probability and rank, outside the top-5 too.
function showStanding() {
  const s = state.classId === null ? null : standing(state.classId);
  $('class-standing').textContent = s ? `${state.metadata.labels[state.classId]}: ${standingText(s)}` : '';
  const note = s ? unlikelyNote(state.metadata.labels[state.classId], s) : '';
  $('unlikely-note').hidden = !note;
  $('unlikely-note').textContent = note;
}

function showTop5() {
  showStanding();
  const list = $('top5');
  // Rebuilding the list must not drop the keyboard focus of the button just chosen.
  const focused = document.activeElement?.closest?.('#top5 button')?.dataset.classId;
  if (!state.top5.length) {
    const waiting = state.kind === 'text' ? (state.text.trim() ? 'Classifying…' : 'No text yet') : state.photo ? 'Classifying…' : 'No photo yet';
    list.innerHTML = `<li class="muted">${waiting}</li>`;
    return;
  }
  list.replaceChildren(...state.top5.map(({ id, prob }) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.dataset.classId = id;
    b.dataset.prob = String(prob);
    b.setAttribute('aria-pressed', String(id === state.classId));
    const name = document.createElement('span');
    name.textContent = state.metadata.labels[id];
    const p = document.createElement('span');
    p.className = 'prob';
    p.textContent = pct(prob);
    const bar = document.createElement('span');
    bar.className = 'bar';
    bar.style.width = `${Math.max(1, prob * 100)}%`;
    b.append(name, p, bar);
    b.addEventListener('click', () => pickA(id));
    li.append(b);
    return li;
  }));
  if (focused !== undefined) list.querySelector(`button[data-class-id="${focused}"]`)?.focus();
}
