// The photo's explanation and maps, for the controller (web/page/controller.js): the photo
// opened on the explainer (state.opened, the public API's Photo) classifies the photo and
// explains the classes and methods the views need; state.maps keeps them, and each new map
// is announced as 'maps'. No feature is called: what is shown follows from the state.
import { contrastBlocker } from 'vit-relevance/runtime/explain-request.js';
import { ATTATTR } from './lib/attribution-panel.js';
import { page, state, link, timeline, showError, showBusy, addNotices } from './state.js';
import { targetKey, mapKey, method, contrastOn, viewTargets, viewMethods, targetLabel } from './targets.js';

function storeMaps(result, startLayer) {
  for (const t of result.targets) {
    const target = t.contrast ? { class: t.id, contrast: t.contrast.id } : { class: t.id };
    const key = `${targetKey(target)}|${startLayer}`;
    const maps = { ...state.maps.get(key) };
    // A text's map carries its word map beside it (the words/wordpieces toggle).
    for (const [m, map] of Object.entries(t.maps)) maps[m] = t.wordMaps ? { ...map, words: t.wordMaps[m] } : map;
    state.maps.set(key, maps);
  }
  timeline.timings = { ...timeline.timings, explainMs: result.timings.modelMs, relevanceMs: result.timings.relevanceMs };
  page.touch('maps');
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

// Closes the opened photo (a new photo, another model).
export function closeOpened() {
  current?.abort();
  state.opened?.close();
  page.set({ opened: null });
}

// The link's values that a stage sets (its notices shown).
export function takeLink(stage, ctx) {
  const fields = {};
  const values = link.take(stage, ctx, fields);
  page.set(fields);
  return values;
}

// Classifies the photo and explains its predicted class; the prediction sets the classes.
export async function analyze(photo) {
  closeOpened();
  showBusy('Classifying and explaining…');
  const startLayer = state.startLayer;
  const signal = supersede();
  const opened = await state.explainer.open(photo, { crop: state.crop });
  if (photo !== state.photo || signal.aborted) return opened.close(); // replaced meanwhile
  page.set({ opened });
  const onPrediction = (p) => {
    if (opened !== state.opened) return;
    timeline.timings = { preprocessMs: p.timings.preprocessMs, predictedBy: p.predictedBy };
    page.set({ region: p.region, top5: p.top5, logits: p.logits, classId: p.top5[0].id, contrastId: p.top5[1]?.id ?? null });
    takeLink('prediction', { classes: state.metadata.labels.length });
    addNotices();
    page.touch('prediction'); // the classes, the map under them: shown (and scrolled to)
  };
  timeline.analyzeSent = performance.now();
  try {
    const methods = viewMethods().filter((m) => m !== ATTATTR);
    const result = await opened.explain({ methods, startLayer, signal, onPrediction });
    if (opened !== state.opened) return;
    storeMaps(result, startLayer);
    ensureMaps();
  } catch (err) {
    if (isAbort(err) || opened !== state.opened) return;
    showBusy(null);
    showError(`Could not analyse ${photo.name}: ${err.message}`);
  }
}

// Explains a text as it is typed: each new text supersedes the last (its Worker request is
// dropped, never waited for). The maps shown so far stay until the new text's come: they
// are the last text's, and `region` ({ text }) says which text the maps are of.
export async function analyzeText(text) {
  closeOpened();
  page.set({ region: null });
  if (!text.trim()) {
    state.maps.clear();
    page.set({ top5: [], logits: null });
    page.touch('maps');
    return showBusy(null);
  }
  showBusy('Explaining as you type…');
  const startLayer = state.startLayer;
  const signal = supersede();
  let opened = null;
  try {
    opened = await state.explainer.open(text);
    if (text !== state.text || signal.aborted) return opened.close(); // typed on meanwhile
    page.set({ opened });
    const result = await opened.explain({ methods: viewMethods().filter((m) => m !== ATTATTR), startLayer, signal });
    if (opened !== state.opened) return;
    state.maps.clear();
    const [first, second] = result.top5;
    // A class the person chose stays chosen while they type; else the predicted one.
    const classes = state.classChosen ? {} : { classId: first.id, contrastId: second?.id ?? null };
    page.set({ region: { text }, top5: result.top5, logits: opened.logits, error: null, ...classes }); // an older text's error is past
    takeLink('prediction', { classes: state.metadata.labels.length });
    addNotices();
    page.touch('prediction');
    storeMaps(result, startLayer);
    ensureMaps();
  } catch (err) {
    if (isAbort(err) || text !== state.text || (opened && opened !== state.opened)) return;
    showBusy(null);
    showError(`Could not explain the text: ${err.message}`);
  }
}

// Asks the Worker for the maps the current view lacks; the views draw what is there.
export async function ensureMaps() {
  const opened = state.opened;
  if (!opened || !state.region) return;
  // A contrast asks only for the methods that can contrast (the others say why not);
  // attattr comes from the Attribution panel: chosen, it is computed on demand.
  if (state.view !== 'grid' && state.method === ATTATTR) {
    state.attattrWanted = state.classId;
    page.touch('attattrWanted');
  }
  const methods = viewMethods().filter((m) => m !== ATTATTR && (!contrastOn() || !contrastBlocker(method(m))));
  const missing = viewTargets().filter((t) => {
    const maps = state.maps.get(mapKey(t));
    return !maps || methods.some((m) => !(m in maps));
  });
  if (!methods.length || !missing.length) {
    showBusy(null);
    return page.touch('maps');
  }
  showBusy(`Explaining ${missing.map((t) => targetLabel(t)).join(' & ')}…`);
  const startLayer = state.startLayer;
  const targets = missing.map((t) => (t.contrast === undefined ? t.class : t));
  try {
    const result = await opened.explain({ targets, methods, startLayer, signal: supersede() });
    if (opened !== state.opened) return;
    showBusy(null);
    storeMaps(result, startLayer);
  } catch (err) {
    if (isAbort(err) || opened !== state.opened) return;
    showBusy(null);
    showError(`Could not explain: ${err.message}`);
  }
}
