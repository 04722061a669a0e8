// Saving what the page shows: the overlay as PNG, the raw map as a greyscale PNG at its own
// resolution (min-max scaled, or the shown scale's [0,1] values: signed puts 0 at mid-grey),
// and the raw values as JSON on the clipboard.

export function saveBlob(blob, filename) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export async function downloadCanvas(canvas, filename) {
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  if (!blob) throw new Error('the browser could not encode the PNG');
  saveBlob(blob, filename);
}

export async function downloadMapPng(map, filename, map01) {
  let lo = 0;
  let hi = 1;
  if (!map01) {
    [lo, hi] = [Infinity, -Infinity];
    for (const v of map.data) { if (v < lo) lo = v; if (v > hi) hi = v; }
  }
  const span = hi > lo ? hi - lo : 1;
  const canvas = document.createElement('canvas');
  const [rows, cols] = map.shape;
  canvas.width = cols;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(cols, rows);
  (map01 ?? map.data).forEach((v, i) => {
    const g = Math.round(((v - lo) / span) * 255);
    img.data.set([g, g, g, 255], i * 4);
  });
  ctx.putImageData(img, 0, 0);
  await downloadCanvas(canvas, filename);
}

// Copies to the clipboard; falls back to a download where the clipboard is refused.
export async function copyJson(value, filename) {
  const text = JSON.stringify(value);
  try {
    await navigator.clipboard.writeText(text);
    return 'copied to the clipboard';
  } catch {
    saveBlob(new Blob([text], { type: 'application/json' }), filename);
    return 'clipboard not available: saved as a file instead';
  }
}

export const slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
