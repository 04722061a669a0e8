// What the controls ask to explain, derived from the state: the targets (class a, or "a
// rather than b"), their keys in state.maps, their labels, and the methods a view shows.
import { classStanding } from 'vit-relevance/runtime/topk.js';
import { pct } from 'vit-relevance/runtime/confidence.js';
import { contrastProblem, contrastBlocker } from '../lib/scale-view.js';
import { state } from './state.js';

export const targetKey = (t) => (t.b === undefined ? `c${t.a}` : `c${t.a}-${t.b}`);
export const mapKey = (t) => `${targetKey(t)}|${state.startLayer}`;

// The core's registry row of a method.
export const method = (id) => state.methodInfo.get(id);

// A contrast needs a class B other than A (contrastProblem says why not).
export const contrastOn = () => state.contrastive && !contrastProblem(state.classA, state.classB, state.metadata.labels);

export function primaryTarget() {
  return contrastOn() ? { a: state.classA, b: state.classB } : { a: state.classA };
}

export function viewTargets() {
  if (state.classA === null) return [];
  if (state.view !== 'pair') return [primaryTarget()]; // the compare view: one target, two photos
  if (state.classB === null) return [{ a: state.classA }];
  return contrastOn()
    ? [{ a: state.classA, b: state.classB }, { a: state.classB, b: state.classA }]
    : [{ a: state.classA }, { a: state.classB }];
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
export const targetLabel = (t, logits) => (t.b === undefined ? label(t.a, logits) : `${state.metadata.labels[t.a]} vs ${state.metadata.labels[t.b]}`);

// Why nothing is drawn for a contrast: B = A, or a method that cannot contrast.
export function contrastNote(m) {
  if (!state.contrastive) return null;
  return contrastProblem(state.classA, state.classB, state.metadata.labels) ?? contrastBlocker(method(m));
}
