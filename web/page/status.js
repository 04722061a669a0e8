// The page's status line, its error bar, the "working" indicator and the timings line,
// shown from the state.
import { Busy } from './lib/busy.js';
import { $, page, state, timeline } from './state.js';

const ms = (t) => (t >= 1000 ? `${(t / 1000).toFixed(2)} s` : `${Math.round(t)} ms`);

// How long the model took for the maps shown.
function showTimings() {
  const t = timeline.timings;
  const parts = [];
  if (t.explainMs) parts.push(`explainer graph ${ms(t.explainMs)}`);
  if (t.relevanceMs !== undefined) parts.push(`relevance maps ${ms(t.relevanceMs)}`);
  $('timings').textContent = parts.length ? `Model: ${parts.join(' · ')}` : '';
}

export function bindStatus() {
  const busy = new Busy($('busy'));
  $('error-close').addEventListener('click', () => page.set({ error: null }));
  page.subscribe(['error'], () => {
    if (state.error) $('error-text').textContent = state.error;
    $('error').hidden = !state.error;
  });
  page.subscribe(['busy'], () => (state.busy ? busy.start(state.busy) : busy.stop()));
  page.subscribe(['status'], () => { $('engine-status').textContent = state.status; });
  page.subscribe(['statusTitle'], () => { $('engine-status').title = state.statusTitle; });
  page.subscribe(['maps'], showTimings);
}
