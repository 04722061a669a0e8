// The photo's analysis and maps: the Worker classifies the photo and explains the classes
// and methods the views need; state.maps keeps them. attattr comes from the Attribution
// panel (web/lib/attribution-panel.js), which this module owns.
import { rgbaOf } from '../lib/image-input.js';
import { REQUEST, REPLY } from '../lib/protocol.js';
import { contrastBlocker } from '../lib/scale-view.js';
import { createAttributionPanel, ATTATTR } from '../lib/attribution-panel.js';
import { $, state, link, timeline } from './state.js';
import { showError, busyIndicator } from './status.js';
import { targetKey, mapKey, method, contrastOn, viewTargets, viewMethods, targetLabel } from './targets.js';
import { engine, core } from './model.js';
import { showClasses } from './classes.js';
import { showLinkNotices } from './link.js';
import { drawViews } from './views.js';
import { forgetHeat } from './tiles.js';

export let attribution = null;

export function bindAnalysis() {
  attribution = createAttributionPanel($('attribution'), {
    page: () => ({ engine, core, photo: state.region && state.photo, region: state.region, modelKey: state.modelKey,
      metadata: state.metadata, classId: state.classA, colormap: state.colormap }),
    onAttattr: () => { forgetHeat(); ensureMaps(); },
  });
}

// A map of the first photo, or null while it is missing.
export const mapOf = (t, m) => (m === ATTATTR ? t.b === undefined && attribution.attattrMap(t.a, state.startLayer) : state.maps.get(mapKey(t))?.[m]) || null;

function storeMaps(msg) {
  for (const { target, maps } of msg.results) state.maps.set(`${targetKey(target)}|${msg.startLayer}`, maps);
  timeline.timings = { ...timeline.timings, explainMs: msg.timings.modelMs, relevanceMs: msg.timings.relevanceMs };
}

// Classifies the photo and explains its predicted class; the prediction sets the classes.
export async function analyze(photo) {
  // The decoder's bytes go to the Worker; analysing the photo again (another model) reads
  // them back from the bitmap.
  const rgba = photo.rgba ?? rgbaOf(photo.bitmap);
  photo.rgba = null;
  busyIndicator().start('Classifying and explaining…');
  const startLayer = state.startLayer;
  const onEvent = (msg) => {
    if (msg.imageId !== state.photo?.imageId) return;
    if (msg.type === REPLY.MAPS) return storeMaps(msg);
    if (msg.type !== REPLY.PREDICTION) return;
    state.region = msg.region;
    state.top5 = msg.top5;
    state.logits = msg.logits;
    timeline.timings = { preprocessMs: msg.timings.preprocessMs, predictedBy: msg.predictedBy };
    state.classA = msg.top5[0].id;
    state.classB = msg.top5[1]?.id ?? null;
    link.take('prediction', { classes: state.metadata.labels.length }, state);
    showLinkNotices();
    showClasses();
    attribution.render();
  };
  timeline.analyzeSent = performance.now();
  try {
    const r = await engine.request(REQUEST.ANALYZE,
      { modelKey: state.modelKey, imageId: photo.imageId, rgba: rgba.buffer, width: photo.width, height: photo.height, methods: viewMethods(), startLayer, crop: state.crop },
      { supersede: true, transfer: [rgba.buffer], onEvent });
    if (r.stale) return;
    ensureMaps();
  } catch (err) {
    busyIndicator().stop();
    showError(`Could not analyse ${photo.name}: ${err.message}`);
  }
}

// Asks the Worker for the maps the current view lacks, then draws.
export async function ensureMaps() {
  const photo = state.photo;
  if (!photo || !state.region) return;
  const busy = busyIndicator();
  // A contrast asks only for the methods that can contrast (the others say why not);
  // attattr comes from the Attribution panel.
  if (state.view !== 'grid' && state.method === ATTATTR) attribution.want(state.classA); // chosen: computed on demand
  const methods = viewMethods().filter((m) => m !== ATTATTR && (!contrastOn() || !contrastBlocker(method(m))));
  if (!methods.length) { busy.stop(); return drawViews(); }
  const missing = viewTargets().filter((t) => {
    const maps = state.maps.get(mapKey(t));
    return !maps || methods.some((m) => !(m in maps));
  });
  if (!missing.length) { busy.stop(); return drawViews(); }
  busy.start(`Explaining ${missing.map((t) => targetLabel(t)).join(' & ')}…`);
  const startLayer = state.startLayer;
  try {
    const r = await engine.request(REQUEST.EXPLAIN,
      { imageId: photo.imageId, targets: missing, methods, startLayer }, { supersede: true });
    if (r.stale || photo !== state.photo) return;
    storeMaps(r.replies.find((m) => m.type === REPLY.MAPS));
    busy.stop();
    drawViews();
  } catch (err) {
    busy.stop();
    showError(`Could not explain: ${err.message}`);
  }
}
