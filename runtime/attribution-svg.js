// @ts-check
// SVG drawings of Self-Attention Attribution's results, environment-neutral (the CLI
// rasterises them with sharp; a page can put them in the DOM as they are):
// the attribution tree as arrows between patch centres over the photo, or as arcs over a
// text's tokens, and the head-importance grid (blocks × heads).

import { esc } from './caption-svg.js';

// The photo pixel at the centre of patch token t (tokens ≥ special), given the region of
// the photo the model saw and the patch grid.
export function patchCentre(t, { region, grid, specialTokens }) {
  const p = t - specialTokens;
  const [rows, cols] = grid;
  return {
    x: region.x + ((p % cols) + 0.5) * (region.width / cols),
    y: region.y + (Math.floor(p / cols) + 0.5) * (region.height / rows),
  };
}

// tree: { top, edges: [{ from, to, block }] }; colours: CSS colour per block. Edges
// touching a special token (CLS has no place on the photo) are listed in `skipped`.
export function treeSvg(tree, { width, height, region, grid, specialTokens, colours }) {
  const layout = { region, grid, specialTokens };
  const r = Math.max(2, Math.min(region.width / grid[1], region.height / grid[0]) / 5);
  const parts = [];
  const skipped = [];
  for (const e of tree.edges) {
    if (e.from < specialTokens || e.to < specialTokens) {
      skipped.push(e);
      continue;
    }
    // "from draws on to": the arrow points from the source of the information (to) to from
    const a = patchCentre(e.to, layout);
    const b = patchCentre(e.from, layout);
    parts.push(`<line x1="${a.x.toFixed(1)}" y1="${a.y.toFixed(1)}" x2="${b.x.toFixed(1)}" y2="${b.y.toFixed(1)}" `
      + `stroke="${colours[e.block]}" stroke-width="${(r * 0.8).toFixed(1)}" marker-end="url(#head${e.block})"/>`);
  }
  const markers = colours.map((c, b) => `<marker id="head${b}" viewBox="0 0 10 10" refX="9" refY="5" `
    + `markerWidth="4" markerHeight="4" orient="auto"><path d="M0,0L10,5L0,10z" fill="${c}"/></marker>`).join('');
  const nodes = new Set(tree.edges.flatMap((e) => [e.from, e.to]).concat([tree.top]));
  for (const t of nodes) {
    if (t < specialTokens) continue;
    const c = patchCentre(t, layout);
    parts.push(`<circle cx="${c.x.toFixed(1)}" cy="${c.y.toFixed(1)}" r="${(t === tree.top ? 2 * r : r).toFixed(1)}" `
      + `fill="${t === tree.top ? '#ffffff' : '#000000'}" stroke="#ffffff" stroke-width="1"/>`);
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`
    + `<defs>${markers}</defs>${parts.join('')}</svg>`;
  return { svg, skipped };
}

// importance: Float32Array [B·h] in (block, head) order; blocks: the block index of each
// row; colour(v01) → CSS colour of a value min-max normalised to [0, 1].
const GRID = { left: 70, top: 24, right: 8, cell: 28 };

// The drawing's width for `heads` columns.
export const headGridWidth = (heads, cell = GRID.cell) => GRID.left + heads * cell + GRID.right;

export function headGridSvg(importance, { blocks, heads, colour, cell = GRID.cell }) {
  const { left, top } = GRID;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of importance) lo = Math.min(lo, v), hi = Math.max(hi, v);
  const span = hi > lo ? hi - lo : 1;
  const parts = [];
  for (let k = 0; k < heads; k++) {
    parts.push(`<text x="${left + (k + 0.5) * cell}" y="${top - 8}" font-size="11" text-anchor="middle" font-family="sans-serif">h${k}</text>`);
  }
  blocks.forEach((b, row) => {
    parts.push(`<text x="${left - 6}" y="${top + (row + 0.7) * cell}" font-size="11" text-anchor="end" font-family="sans-serif">block ${b}</text>`);
    for (let k = 0; k < heads; k++) {
      const v = importance[row * heads + k];
      parts.push(`<rect x="${left + k * cell}" y="${top + row * cell}" width="${cell - 1}" height="${cell - 1}" `
        + `fill="${colour((v - lo) / span)}"><title>${esc(`block ${b}, head ${k}: ${v}`)}</title></rect>`);
    }
  });
  const width = headGridWidth(heads, cell);
  const height = top + blocks.length * cell + GRID.right;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`
    + `<rect width="100%" height="100%" fill="#ffffff"/>${parts.join('')}</svg>`;
}

// colour(v01) → the CSS colour of a value in [0, 1] on the core's `colormap` (its legend).
export function legendColour(core, colormap) {
  const legend = core.legend(colormap);
  return (v01) => {
    const i = Math.max(0, Math.min(255, Math.round(v01 * 255))) * 4;
    return `rgb(${legend[i]},${legend[i + 1]},${legend[i + 2]})`;
  };
}

// A text's attribution tree: its tokens in a row, each edge an arc from the token drawn on
// (to) to the token that draws on it (from), coloured by block; the top token framed.
export function textTreeSvg(tree, { tokens, colours, charWidth = 8, height = 220 }) {
  const widths = tokens.map((t) => (t.length + 1) * charWidth);
  const left = [];
  widths.reduce((x, w, i) => { left[i] = x; return x + w; }, 10);
  const centre = (i) => left[i] + widths[i] / 2;
  const base = height - 30;
  const parts = tree.edges.map((e) => {
    const a = centre(e.to);
    const b = centre(e.from);
    const rise = Math.min(base - 10, 20 + Math.abs(b - a) / 3);
    return `<path d="M${a.toFixed(1)},${base} C${a.toFixed(1)},${base - rise} ${b.toFixed(1)},${base - rise} ${b.toFixed(1)},${base}" `
      + `fill="none" stroke="${colours[e.block]}" stroke-width="2" marker-end="url(#head${e.block})"><title>${esc(`block ${e.block}: ${tokens[e.from]} draws on ${tokens[e.to]}`)}</title></path>`;
  });
  const markers = colours.map((c, b) => `<marker id="head${b}" viewBox="0 0 10 10" refX="9" refY="5" `
    + `markerWidth="5" markerHeight="5" orient="auto"><path d="M0,0L10,5L0,10z" fill="${c}"/></marker>`).join('');
  tokens.forEach((t, i) => {
    const top = i === tree.top;
    parts.push(`<text x="${centre(i).toFixed(1)}" y="${base + 18}" font-size="13" text-anchor="middle" font-family="monospace"`
      + `${top ? ' font-weight="bold" text-decoration="underline"' : ''}>${esc(t)}</text>`);
  });
  const width = left[tokens.length - 1] + widths[tokens.length - 1] + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width.toFixed(0)}" height="${height}">`
    + `<rect width="100%" height="100%" fill="#ffffff"/><defs>${markers}</defs>${parts.join('')}</svg>`;
}
