// What the controls ask to explain, derived from the state: the targets ({ class }, or
// { class, contrast }: "the class rather than the contrast class"), their keys in state.maps,
// their labels, the methods a view shows and the first photo's maps.
import { classStanding } from 'vit-relevance/runtime/topk.js';
import { pct } from 'vit-relevance/runtime/confidence.js';
import { contrastProblem } from './lib/scale-view.js';
import { contrastBlocker } from 'vit-relevance/runtime/explain-request.js';
import { ATTATTR } from './lib/attribution-panel.js';
import { state } from './state.js';

export const targetKey = (t) => (t.contrast === undefined ? `c${t.class}` : `c${t.class}-${t.contrast}`);
export const mapKey = (t) => `${targetKey(t)}|${state.startLayer}`;

// The core's registry row of a method.
export const method = (id) => state.methodInfo.get(id);

// A contrast needs a class B other than A (contrastProblem says why not).
export const contrastOn = () => state.contrastive && !contrastProblem(state.classId, state.contrastId, state.metadata.labels);

export function primaryTarget() {
  return contrastOn() ? { class: state.classId, contrast: state.contrastId } : { class: state.classId };
}

export function viewTargets() {
  if (state.classId === null) return [];
  if (state.view !== 'pair') return [primaryTarget()]; // the compare view: one target, two photos
  if (state.contrastId === null) return [{ class: state.classId }];
  return contrastOn()
    ? [{ class: state.classId, contrast: state.contrastId }, { class: state.contrastId, contrast: state.classId }]
    : [{ class: state.classId }, { class: state.contrastId }];
}

// The methods the current view shows: the grid needs all, the other views one.
export const viewMethods = () => (state.view === 'grid' ? state.methods : [state.method]);

// A class with its probability and rank among all classes, once the photo is classified
// (`logits`: the first photo's unless another's are given).
export const standing = (id, logits = state.logits) => (logits ? classStanding(logits, id) : null);

function label(id, logits) {
  const s = standing(id, logits);
  return `${state.metadata.labels[id]}${s ? ` ${pct(s.prob)}${s.rank > 5 ? ` (rank ${s.rank})` : ''}` : ''}`;
}
export const targetLabel = (t, logits) => (t.contrast === undefined ? label(t.class, logits)
  : `${state.metadata.labels[t.class]} vs ${state.metadata.labels[t.contrast]}`);

// Why nothing is drawn for a contrast: B = A, or a method that cannot contrast.
export function contrastNote(m) {
  if (!state.contrastive) return null;
  return contrastProblem(state.classId, state.contrastId, state.metadata.labels) ?? contrastBlocker(method(m));
}

// A map of the first photo, or null while it is missing (attattr: from the Attribution panel).
export const mapOf = (t, m) => (m === ATTATTR
  ? t.contrast === undefined && state.attattrMap?.(t.class, state.startLayer)
  : state.maps.get(mapKey(t))?.[m]) || null;
