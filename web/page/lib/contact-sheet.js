// "Download all": every tile of a view in one PNG, each photo scaled into a cell of the
// same size with its caption under it, and a title line over them all.

export const CELL = 320;     // the longer side of a tile's picture in the sheet
const CAPTION = 44;          // two caption lines under each picture
const TITLE = 34;
const MARGIN = 12;

// Where the cells lie for n tiles in `columns` columns: the sheet's size and each cell's
// picture box (the tests read the sheet back with it).
export function sheetLayout(n, columns) {
  const cols = Math.max(1, Math.min(columns, n));
  const rows = Math.ceil(n / cols);
  const cells = Array.from({ length: n }, (_, i) => ({
    x: MARGIN + (i % cols) * (CELL + MARGIN),
    y: TITLE + MARGIN + Math.floor(i / cols) * (CELL + CAPTION + MARGIN),
    width: CELL,
    height: CELL,
  }));
  return {
    width: MARGIN + cols * (CELL + MARGIN),
    height: TITLE + MARGIN + rows * (CELL + CAPTION + MARGIN),
    cells,
  };
}

// Text cut to fit `width` with an ellipsis.
function fit(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let s = text;
  while (s.length > 1 && ctx.measureText(`${s}…`).width > width) s = s.slice(0, -1);
  return `${s}…`;
}

// tiles: [{ canvas, caption, sub }]; returns a canvas holding the sheet.
export function contactSheet(tiles, title, columns) {
  const layout = sheetLayout(tiles.length, columns);
  const sheet = document.createElement('canvas');
  sheet.width = layout.width;
  sheet.height = layout.height;
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  ctx.fillStyle = '#1c2230';
  ctx.textBaseline = 'top';
  ctx.font = '600 16px system-ui, sans-serif';
  ctx.fillText(fit(ctx, title, sheet.width - 2 * MARGIN), MARGIN, MARGIN);
  tiles.forEach(({ canvas, caption, sub }, i) => {
    const cell = layout.cells[i];
    ctx.fillStyle = '#e9ecf2';
    ctx.fillRect(cell.x, cell.y, cell.width, cell.height);
    const s = Math.min(cell.width / canvas.width, cell.height / canvas.height);
    const w = canvas.width * s;
    const h = canvas.height * s;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(canvas, cell.x + (cell.width - w) / 2, cell.y + (cell.height - h) / 2, w, h);
    ctx.fillStyle = '#1c2230';
    ctx.font = '600 13px system-ui, sans-serif';
    ctx.fillText(fit(ctx, caption, cell.width), cell.x, cell.y + cell.height + 6);
    ctx.fillStyle = '#5d6678';
    ctx.font = '12px system-ui, sans-serif';
    ctx.fillText(fit(ctx, sub, cell.width), cell.x, cell.y + cell.height + 24);
  });
  return sheet;
}
