// The photo's analysis and maps: its photo session on the explainer (state.session, the
// public API's Photo) classifies the photo and explains the classes and methods the views
// need; state.maps keeps them. attattr comes from the Attribution panel
// (web/lib/attribution-panel.js), which this module owns.
import { contrastBlocker } from 'vit-relevance/runtime/explain-request.js';
import { createAttributionPanel, ATTATTR } from '../lib/attribution-panel.js';
import { $, state, link, timeline, photoKey } from './state.js';
import { showError, busyIndicator } from './status.js';
import { targetKey, mapKey, method, contrastOn, viewTargets, viewMethods, targetLabel } from './targets.js';
import { explainer, core } from './model.js';
import { showClasses } from './classes.js';
import { showLinkNotices } from './link.js';
import { drawViews } from './views.js';
import { forgetHeat } from './tiles.js';
import { reveal } from '../lib/reveal.js';

export let attribution = null;

export function bindAnalysis() {
  attribution = createAttributionPanel($('attribution'), {
    page: () => ({ core, photo: state.region && state.photo, photoKey: state.photo && photoKey(state.photo), session: state.session, region: state.region,
      metadata: state.metadata, classId: state.classId, colormap: state.colormap }),
    onAttattr: () => { forgetHeat(); ensureMaps(); },
  });
}

// A map of the first photo, or null while it is missing.
export const mapOf = (t, m) => (m === ATTATTR ? t.contrast === undefined && attribution.attattrMap(t.class, state.startLayer) : state.maps.get(mapKey(t))?.[m]) || null;

function storeMaps(result, startLayer) {
  for (const t of result.targets) {
    const target = t.contrast ? { class: t.id, contrast: t.contrast.id } : { class: t.id };
    const key = `${targetKey(target)}|${startLayer}`;
    const maps = { ...state.maps.get(key) };
    for (const [m, map] of Object.entries(t.maps)) maps[m] = map;
    state.maps.set(key, maps);
  }
  timeline.timings = { ...timeline.timings, explainMs: result.timings.modelMs, relevanceMs: result.timings.relevanceMs };
}

// The requests for the photo shown: a newer one makes the older stale (its queued work is
// skipped, its late replies dropped).
let current = null;
function supersede() {
  current?.abort();
  current = new AbortController();
  return current.signal;
}
const isAbort = (err) => err?.name === 'AbortError';

// Frees the photo session (a new photo, another model).
export function closeSession() {
  current?.abort();
  state.session?.close();
  state.session = null;
}

// Classifies the photo and explains its predicted class; the prediction sets the classes.
export async function analyze(photo) {
  closeSession();
  busyIndicator().start('Classifying and explaining…');
  const startLayer = state.startLayer;
  const signal = supersede();
  const session = await explainer.open(photo, { crop: state.crop });
  if (photo !== state.photo || signal.aborted) return session.close(); // replaced meanwhile
  state.session = session;
  const onPrediction = (p) => {
    if (session !== state.session) return;
    state.region = p.region;
    state.top5 = p.top5;
    state.logits = p.logits;
    timeline.timings = { preprocessMs: p.timings.preprocessMs, predictedBy: p.predictedBy };
    state.classId = p.top5[0].id;
    state.contrastId = p.top5[1]?.id ?? null;
    link.take('prediction', { classes: state.metadata.labels.length }, state);
    showLinkNotices();
    showClasses();
    attribution.render();
    reveal(document.querySelector('.picker')); // the classes, the map under them
  };
  timeline.analyzeSent = performance.now();
  try {
    const methods = viewMethods().filter((m) => m !== ATTATTR);
    const result = await session.explain({ methods, startLayer, signal, onPrediction });
    if (session !== state.session) return;
    storeMaps(result, startLayer);
    ensureMaps();
  } catch (err) {
    if (isAbort(err) || session !== state.session) return;
    busyIndicator().stop();
    showError(`Could not analyse ${photo.name}: ${err.message}`);
  }
}
// Asks the Worker for the maps the current view lacks, then draws.
export async function ensureMaps() {
  const session = state.session;
  if (!session || !state.region) return;
  const busy = busyIndicator();
  // A contrast asks only for the methods that can contrast (the others say why not);
  // attattr comes from the Attribution panel.
  if (state.view !== 'grid' && state.method === ATTATTR) attribution.want(state.classId); // chosen: computed on demand
  const methods = viewMethods().filter((m) => m !== ATTATTR && (!contrastOn() || !contrastBlocker(method(m))));
  if (!methods.length) { busy.stop(); return drawViews(); }
  const missing = viewTargets().filter((t) => {
    const maps = state.maps.get(mapKey(t));
    return !maps || methods.some((m) => !(m in maps));
  });
  if (!missing.length) { busy.stop(); return drawViews(); }
  busy.start(`Explaining ${missing.map((t) => targetLabel(t)).join(' & ')}…`);
  const startLayer = state.startLayer;
  const targets = missing.map((t) => (t.contrast === undefined ? t.class : t));
  try {
    const result = await session.explain({ targets, methods, startLayer, signal: supersede() });
    if (session !== state.session) return;
    storeMaps(result, startLayer);
    busy.stop();
    drawViews();
  } catch (err) {
    if (isAbort(err) || session !== state.session) return;
    busy.stop();
    showError(`Could not explain: ${err.message}`);
  }
}
