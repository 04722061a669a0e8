// The text view as one PNG: each drawn tile's coloured text (the colours the page shows,
// read from the drawing: web/element/text-drawing.js), its special tokens and its legend,
// under a title and the view's caption, wrapped to a fixed width on a canvas.
const WIDTH = 960;
const PAD = 24;
const FONT = '18px sans-serif';
const LINE = 30;

// The tile's coloured stretches in order: { text, bg, fg } (bg null: uncoloured text).
function piecesOf(node) {
  const out = [];
  for (const n of node.childNodes) {
    if (n.nodeType === Node.TEXT_NODE) {
      for (const part of n.textContent.split(/(\s+)/)) if (part) out.push({ text: part, bg: null, fg: '#111' });
    } else if (n.classList?.contains('t')) {
      out.push({ text: n.textContent, bg: n.style.background || null, fg: n.style.color || '#111' });
    } else {
      out.push({ text: n.textContent, bg: null, fg: '#666' });
    }
  }
  return out;
}

// Lays pieces out from y, wrapping at the width; draws them when ctx.draw → the next y.
function flow(ctx, pieces, y, draw) {
  let x = PAD;
  for (const p of pieces) {
    const w = ctx.measureText(p.text).width;
    if (x + w > WIDTH - PAD && x > PAD) {
      x = PAD;
      y += LINE;
      if (/^\s+$/.test(p.text)) continue;
    }
    if (draw) {
      if (p.bg) {
        ctx.fillStyle = p.bg;
        ctx.fillRect(x, y - LINE + 6, w, LINE - 4);
      }
      ctx.fillStyle = p.fg;
      ctx.fillText(p.text, x, y);
    }
    x += w;
  }
  return y + LINE;
}

// The legend: low end, the colour bar, high end, the scale in words.
function drawLegend(ctx, legend, y) {
  const bar = legend.querySelector('.bar');
  if (!bar) return y;
  const colours = bar.style.background.match(/rgba?\([^)]*\)/g) ?? [];
  const parts = [...legend.childNodes].filter((n) => n !== bar).map((n) => n.textContent);
  ctx.font = '14px sans-serif';
  ctx.fillStyle = '#333';
  ctx.fillText(parts[0] ?? '', PAD, y);
  const x0 = PAD + ctx.measureText(parts[0] ?? '').width + 8;
  const g = ctx.createLinearGradient(x0, 0, x0 + 240, 0);
  colours.forEach((c, i) => g.addColorStop(colours.length > 1 ? i / (colours.length - 1) : 0, c));
  ctx.fillStyle = g;
  ctx.fillRect(x0, y - 14, 240, 16);
  ctx.fillStyle = '#333';
  ctx.fillText(`${parts[1] ?? ''}  ${parts.slice(2).join(' ')}`, x0 + 248, y);
  ctx.font = FONT;
  return y + LINE;
}

// view: #text-view as drawn; title: the first line. → a canvas.
export function textViewCanvas(view, title) {
  const tiles = [...view.querySelectorAll('.text-tile')];
  const caption = view.querySelector('.text-caption')?.textContent ?? '';
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d');
  const blocks = [{ pieces: [{ text: title, bg: null, fg: '#111' }] }, { pieces: piecesOf({ childNodes: [document.createTextNode(caption)] }) }];
  for (const tile of tiles) {
    const name = tile.firstElementChild?.matches('span') ? tile.firstElementChild.textContent : null;
    if (name) blocks.push({ pieces: [{ text: name, bg: null, fg: '#444' }] });
    blocks.push({ pieces: piecesOf(tile.querySelector('.text')) });
    const specials = tile.querySelector('.specials');
    if (specials) blocks.push({ pieces: piecesOf(specials) });
    blocks.push({ legend: tile.querySelector('.legend') });
  }
  // Measure, size the canvas, then draw (a canvas resize clears it and its font).
  ctx.font = FONT;
  let height = PAD + LINE;
  for (const b of blocks) height = b.legend ? height + LINE : flow(ctx, b.pieces, height, false);
  canvas.width = WIDTH;
  canvas.height = height + PAD;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, WIDTH, canvas.height);
  ctx.font = FONT;
  let y = PAD + LINE - 6;
  for (const b of blocks) y = b.legend ? drawLegend(ctx, b.legend, y) : flow(ctx, b.pieces, y, true);
  return canvas;
}
