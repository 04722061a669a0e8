// The Attribution panel's tree for a text: the attribution tree (core.attributionTree over
// every block's Attr, [CLS] the one token before the words) drawn as arcs over the text's
// tokens by runtime/attribution-svg.js's textTreeSvg, as the CLI's `attribute --text` writes
// tree.svg. The figure exposes what is drawn (data-edges, data-top, data-top-token).
import { textTreeSvg } from 'vit-relevance/runtime/attribution-svg.js';

// box: the element that holds the drawing; → the note under it.
export function drawTextTree(box, { core, attr, tau, tokens, colours, show }) {
  const tree = core.attributionTree(attr, tau, 1);
  box.replaceChildren();
  Object.assign(box.dataset, { edges: String(tree.edges.length), top: String(tree.top), topToken: tokens[tree.top] });
  if (show) {
    const svg = textTreeSvg(tree, { tokens, colours });
    const node = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
    node.setAttribute('class', 'attr-text-tree-svg');
    node.setAttribute('role', 'img');
    node.setAttribute('aria-label', `Attribution tree over the tokens: ${tree.edges.length} links, top token ${tokens[tree.top]}`);
    box.append(document.importNode(node, true));
  }
  return `${tree.edges.length} link${tree.edges.length === 1 ? '' : 's'}, top token "${tokens[tree.top]}"; each arc goes from the token `
    + 'drawn on to the token that draws on it, coloured by block.';
}
