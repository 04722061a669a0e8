// The page's status line, its error bar and the "working" indicator.
import { Busy } from '../lib/busy.js';
import { $, timeline } from './state.js';

export function showError(message) {
  $('error-text').textContent = message;
  $('error').hidden = false;
}

export function clearError() { $('error').hidden = true; }

export function setStatus(text) { $('engine-status').textContent = text; }

let busy = null;
export const busyIndicator = () => (busy ??= new Busy($('busy')));

const ms = (t) => (t >= 1000 ? `${(t / 1000).toFixed(2)} s` : `${Math.round(t)} ms`);

// How long the model took for the maps shown.
export function showTimings() {
  const t = timeline.timings;
  const parts = [];
  if (t.explainMs) parts.push(`explainer graph ${ms(t.explainMs)}`);
  if (t.relevanceMs !== undefined) parts.push(`relevance maps ${ms(t.relevanceMs)}`);
  $('timings').textContent = parts.length ? `Model: ${parts.join(' · ')}` : '';
}

export function bindStatus() {
  $('error-close').addEventListener('click', clearError);
}
