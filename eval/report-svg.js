// @ts-check
// A self-contained SVG line chart for evaluation reports (no script, no external style):
// axes with ticks at round values, one polyline per series with point markers, a legend,
// colours that stay apart for colour-blind readers (the 8 Okabe–Ito colours, then the same
// colours dashed, so no two lines look alike).
//   lineChartSvg({ title, xLabel, yLabel, x: [0, 10, ...], series: [{ name, y: [...] }] })
// Non-finite y values leave a gap in their line. Environment-neutral.

const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#7F7F7F'];
const DASHES = ['', '6 3', '2 3'];

export function escapeXml(text) {
  return String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

// Coordinates with two decimals at most, written the same way on every machine.
const num = (v) => String(Math.round(v * 100) / 100);

// Round tick values (1, 2, 2.5, 5 × 10^k) covering [lo, hi], about `count` of them.
export function niceTicks(lo, hi, count = 6) {
  if (!(hi > lo)) {
    const pad = Math.abs(lo) > 0 ? Math.abs(lo) * 0.1 : 1;
    return niceTicks(lo - pad, lo + pad, count);
  }
  const raw = (hi - lo) / Math.max(count - 1, 1);
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw * 0.999);
  const first = Math.floor(lo / step + 1e-9);
  const last = Math.ceil(hi / step - 1e-9);
  const ticks = [];
  for (let k = first; k <= last; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

function tickLabel(v) {
  return String(Number(v.toPrecision(10)));
}

function checkInput({ x, series }) {
  if (!Array.isArray(x) || x.length === 0 || !x.every(Number.isFinite)) throw new Error('lineChartSvg: x must be a non-empty array of numbers');
  if (!Array.isArray(series) || series.length === 0) throw new Error('lineChartSvg: series must be a non-empty array');
  for (const s of series) {
    if (!s || typeof s.name !== 'string' || !Array.isArray(s.y) || s.y.length !== x.length) {
      throw new Error(`lineChartSvg: series ${JSON.stringify(s?.name)} needs a name and ${x.length} y values`);
    }
  }
}

export function lineChartSvg({ title = '', xLabel = '', yLabel = '', x, series, width = 720, height = 440 }) {
  checkInput({ x, series });
  const ys = series.flatMap((s) => s.y).filter(Number.isFinite);
  const xTicks = niceTicks(Math.min(...x), Math.max(...x), 10);
  const yTicks = niceTicks(ys.length ? Math.min(...ys) : 0, ys.length ? Math.max(...ys) : 1);
  const [x0, x1] = [xTicks[0], xTicks.at(-1)];
  const [y0, y1] = [yTicks[0], yTicks.at(-1)];

  const legendWidth = Math.min(240, 40 + 7 * Math.max(...series.map((s) => s.name.length)));
  const plot = { left: 64, top: title ? 40 : 16, right: width - legendWidth - 16, bottom: height - 52 };
  const px = (v) => plot.left + ((v - x0) / (x1 - x0)) * (plot.right - plot.left);
  const py = (v) => plot.bottom - ((v - y0) / (y1 - y0)) * (plot.bottom - plot.top);

  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
  if (title) out.push(`<text x="${num(width / 2)}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escapeXml(title)}</text>`);
  for (const t of yTicks) {
    out.push(`<line x1="${num(plot.left)}" y1="${num(py(t))}" x2="${num(plot.right)}" y2="${num(py(t))}" stroke="#e4e4e4"/>`);
    out.push(`<text x="${num(plot.left - 6)}" y="${num(py(t) + 4)}" text-anchor="end">${tickLabel(t)}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line x1="${num(px(t))}" y1="${num(plot.bottom)}" x2="${num(px(t))}" y2="${num(plot.bottom + 5)}" stroke="#333333"/>`);
    out.push(`<text x="${num(px(t))}" y="${num(plot.bottom + 18)}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  out.push(`<polyline points="${num(plot.left)},${num(plot.top)} ${num(plot.left)},${num(plot.bottom)} ${num(plot.right)},${num(plot.bottom)}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${num((plot.left + plot.right) / 2)}" y="${num(height - 12)}" text-anchor="middle">${escapeXml(xLabel)}</text>`);
  const midY = num((plot.top + plot.bottom) / 2);
  out.push(`<text x="16" y="${midY}" text-anchor="middle" transform="rotate(-90 16 ${midY})">${escapeXml(yLabel)}</text>`);

  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const dash = DASHES[Math.floor(i / COLOURS.length) % DASHES.length];
    const style = `fill="none" stroke="${colour}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}`;
    // Consecutive finite points form one polyline; a gap starts the next.
    let run = [];
    const flush = () => {
      if (run.length > 1) out.push(`<polyline points="${run.join(' ')}" ${style}/>`);
      run = [];
    };
    s.y.forEach((v, k) => {
      if (!Number.isFinite(v)) return flush();
      run.push(`${num(px(x[k]))},${num(py(v))}`);
      out.push(`<circle cx="${num(px(x[k]))}" cy="${num(py(v))}" r="2.5" fill="${colour}"/>`);
    });
    flush();
    const ly = plot.top + 8 + i * 18;
    const lx = plot.right + 16;
    out.push(`<line x1="${lx}" y1="${num(ly)}" x2="${lx + 22}" y2="${num(ly)}" ${style}/>`);
    out.push(`<text x="${lx + 28}" y="${num(ly + 4)}">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
