// @ts-check
// A caption band for the CLI's pictures, as SVG (environment-neutral; the CLI rasterises it
// with sharp under the picture): a line of text saying what is shown, and the colour scale
// with the values its two ends stand for.

/** @param {unknown} s */
export const esc = (s) => String(s).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

const STOPS = 16;
const CHAR_EM = 0.6; // DejaVu Sans's mean advance, in em: enough to fit lines without measuring

// The text in lines of at most `chars` characters, broken after " · " or at spaces.
function wrap(text, chars) {
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > chars) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return [...lines, line];
}

/**
 * The band under a picture `width` pixels wide; its height grows with the width so the text
 * stays legible on a large photo.
 * @param {{ width: number, text: string, legend: Uint8Array | Uint8ClampedArray, low: string, high: string }} band
 *   legend: 256 × 1 RGBA of the colormap (core.legend), its first colour for `low`.
 * @returns {{ svg: string, height: number }}
 */
export function captionBandSvg({ width, text, legend, low, high }) {
  const font = Math.max(11, Math.min(40, Math.round(width / 45)));
  const pad = Math.round(font * 0.6);
  const lines = wrap(text, Math.max(8, Math.floor((width - 2 * pad) / (font * CHAR_EM))));
  const top = Math.round(font * 1.2 * (lines.length - 1)); // the scale's row moves down a line per extra line
  const height = top + Math.round(font * 3.3);
  const stops = Array.from({ length: STOPS + 1 }, (_, k) => {
    const i = Math.round((k / STOPS) * 255) * 4;
    return `<stop offset="${(k / STOPS).toFixed(4)}" stop-color="rgb(${legend[i]},${legend[i + 1]},${legend[i + 2]})"/>`;
  }).join('');
  const label = (x, anchor, s) => `<text x="${x}" y="${top + Math.round(font * 2.85)}" font-size="${font}" text-anchor="${anchor}" font-family="DejaVu Sans, sans-serif">${esc(s)}</text>`;
  // The bar between the two end labels, which take about 0.6 em a character.
  const lowWidth = Math.round(low.length * font * CHAR_EM) + pad;
  const highWidth = Math.round(high.length * font * CHAR_EM) + pad;
  const bar = { x: pad + lowWidth, width: Math.max(font, width - 2 * pad - lowWidth - highWidth) };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`
    + `<defs><linearGradient id="scale">${stops}</linearGradient></defs>`
    + '<rect width="100%" height="100%" fill="#ffffff"/>'
    + lines.map((line, k) => `<text x="${pad}" y="${Math.round(font * 1.2 * (k + 1))}" font-size="${font}" `
      + `font-family="DejaVu Sans, sans-serif">${esc(line)}</text>`).join('')
    + label(pad, 'start', low)
    + `<rect x="${bar.x}" y="${top + Math.round(font * 1.9)}" width="${bar.width}" height="${Math.round(font * 1.1)}" fill="url(#scale)" stroke="#888888" stroke-width="1"/>`
    + label(width - pad, 'end', high)
    + '</svg>';
  return { svg, height };
}
