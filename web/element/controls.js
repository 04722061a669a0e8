// @ts-check
// controls="compact": a class picker (the top 5 and the class shown) and a method picker
// above the maps. Picking sets the element's attribute, which re-explains.
import { pct } from 'vit-relevance/runtime/confidence.js';
import { optionOf, methodsOf } from './attributes.js';

/** @import { BrowserExplainResult, Explainer } from '../vit-relevance.js' */

/**
 * Fills (or hides) `container` for `element`'s last explanation.
 * @param {HTMLElement} container
 * @param {HTMLElement} element
 * @param {{ result: BrowserExplainResult, explainer: Explainer } | null} shown
 */
export function fillControls(container, element, shown) {
  const on = optionOf(element, 'controls') === 'compact' && shown;
  container.hidden = !on;
  if (!on) return;
  const { result: { top5, targets }, explainer } = shown;
  const classes = new Map(top5.map((t) => [t.id, `${t.label} ${pct(t.prob)}`]));
  if (!classes.has(targets[0].id)) classes.set(targets[0].id, targets[0].label);
  const classPick = document.createElement('select');
  classPick.setAttribute('aria-label', 'Class to explain');
  for (const [id, text] of classes) classPick.append(new Option(text, String(id), false, id === targets[0].id));
  classPick.addEventListener('change', () => element.setAttribute('class-id', classPick.value));
  const methodPick = document.createElement('select');
  methodPick.setAttribute('aria-label', 'Relevance method');
  const current = methodsOf(element);
  for (const m of explainer.methods) methodPick.append(new Option(explainer.method(m).shortName, m, false, current[0] === m));
  methodPick.addEventListener('change', () => element.setAttribute('method', methodPick.value));
  container.replaceChildren(classPick, methodPick);
}
