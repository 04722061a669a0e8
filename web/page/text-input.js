// A text model's input (docs/page.md, "Text"): the text box that takes the photo area's
// place, its sample sentences and "Copy link with this text". Each edit is an intent: the
// controller explains the text at once, superseding the last edit's request, so the map
// follows the typing without a button. The body says which kind of model is chosen
// (data-kind), which the styles read to show the text box or the photo controls.
import { $, page, state, link } from './state.js';

export const SAMPLE_TEXTS = [
  'the acting is superb, but the plot is a complete mess',
  'A gripping, beautifully shot film.',
  "I expected to hate it, and I didn't.",
  'Dull, slow and far too long.',
];

export function bindTextInput() {
  const box = $('text-input');
  box.addEventListener('input', () => page.dispatch('text', box.value));
  $('text-samples').replaceChildren(...SAMPLE_TEXTS.map((sample) => {
    const li = document.createElement('li');
    const b = Object.assign(document.createElement('button'), { type: 'button', textContent: sample });
    b.addEventListener('click', () => page.dispatch('text', sample));
    li.append(b);
    return li;
  }));
  $('text-link').addEventListener('click', copyLink);
  page.subscribe(['kind'], () => {
    document.body.dataset.kind = state.kind;
    // A text has one view and the grid: two classes and two photos are the photos' views.
    if (state.kind === 'text' && (state.view === 'pair' || state.view === 'compare')) page.dispatch('settings', { view: 'single' });
  });
  page.subscribe(['text'], () => {
    if (box.value !== state.text) box.value = state.text; // a sample or the link's text
    $('text-link').disabled = !state.text.trim();
    $('text-link-out').hidden = true; // a link copied earlier holds an older text
  });
}

// The address bar's link (model, class, method, view) with the text added: a typed text
// may be private, so it goes into a link only here, when the person asks.
async function copyLink() {
  // The state's link now (the address bar follows it a moment later).
  const url = new URL(`${location.pathname}?${link.query(state, { model: state.model.name })}`, location.href);
  url.searchParams.set('text', state.text);
  const out = $('text-link-out');
  out.value = url.href;
  out.hidden = false;
  out.select();
  try {
    await navigator.clipboard.writeText(url.href);
    $('text-link-status').textContent = 'Link with this text copied to the clipboard.';
  } catch {
    $('text-link-status').textContent = 'The clipboard is not available: copy the link above.';
  }
}
