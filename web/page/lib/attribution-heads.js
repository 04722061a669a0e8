// The Attribution panel's head-importance grid (blocks × heads) as a table: each cell's
// importance (max over (i, j) of Attr, computed by the core) on the page's colormap,
// scaled to the grid's own range, and its value in data-value and its label.

// n CSS colours along the core's legend of `colormap`.
export function legendColours(core, colormap, n) {
  const legend = core.legend(colormap);
  return Array.from({ length: n }, (_, b) => {
    const i = Math.round((n > 1 ? b / (n - 1) : 0) * 255) * 4;
    return `rgb(${legend[i]},${legend[i + 1]},${legend[i + 2]})`;
  });
}

// table, readout: the grid's elements; attr: Attr of `blocks` as one [n,h,S,S] tensor.
export function drawHeadTable(table, readout, { core, colormap, attr, blocks, heads: h }) {
  const importance = core.headImportance(attr).data;
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of importance) lo = Math.min(lo, v), hi = Math.max(hi, v);
  const fill = legendColours(core, colormap, 256);
  const head = document.createElement('tr');
  head.append(document.createElement('th'), ...Array.from({ length: h }, (_, k) => Object.assign(document.createElement('th'), { scope: 'col', textContent: `h${k}` })));
  const rows = blocks.map((b, row) => {
    const tr = document.createElement('tr');
    tr.append(Object.assign(document.createElement('th'), { scope: 'row', textContent: `block ${b}` }));
    for (let k = 0; k < h; k++) {
      const v = importance[row * h + k];
      const td = document.createElement('td');
      td.tabIndex = 0;
      td.dataset.block = String(b);
      td.dataset.head = String(k);
      td.dataset.value = String(v);
      td.style.background = fill[Math.round(((v - lo) / (hi - lo || 1)) * 255)];
      td.setAttribute('aria-label', `block ${b}, head ${k}: ${v.toPrecision(4)}`);
      tr.append(td);
    }
    return tr;
  });
  table.replaceChildren(head, ...rows);
  // The colours are scaled to this grid's own range: say which values its ends stand for.
  readout.textContent = `Head importance: max over (i, j) of Attr, coloured from ${lo.toPrecision(3)} `
    + `(low) to ${hi.toPrecision(3)} (high) in the page's colormap. Hover or focus a cell.`;
}
