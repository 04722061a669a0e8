// @ts-check
// A PNG decoder that reads pixels as PIL's Image.open(...).convert('RGB') does, for the
// PNGs on which a browser's canvas reads differently (./png-header.js,
// pngNeedsOwnDecoder): with alpha (colour types 4 and 6, or a tRNS chunk) the canvas stores
// premultiplied alpha, so a transparent pixel's colour is lost (read back black) and a
// partly transparent one's is rounded; 16-bit samples are reduced differently. PIL drops
// alpha and keeps the stored colour values, takes the high byte of 16-bit colour samples,
// and clips 16-bit grey (its mode "I") to 255.
// Environment-neutral: zlib by DecompressionStream (browsers, Node >= 18).
import { PngError, chunks, pngHeader } from './png-header.js';

const CHANNELS = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };

async function inflate(data) {
  const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream('deflate'));
  try {
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (err) {
    throw new PngError(`PNG image data is damaged: ${err.message}`);
  }
}

function paeth(a, b, c) {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Undoes the filter of one row: `raw` from `src` (after its filter byte) into `out`, with
// `prev` the row above (unfiltered; null on a pass's first row).
function unfilterRow(f, raw, src, out, prev, bpp) {
  const n = out.length;
  switch (f) {
    case 0: out.set(raw.subarray(src, src + n)); break;
    case 1:
      for (let x = 0; x < n; x++) out[x] = raw[src + x] + (x >= bpp ? out[x - bpp] : 0);
      break;
    case 2:
      for (let x = 0; x < n; x++) out[x] = raw[src + x] + (prev ? prev[x] : 0);
      break;
    case 3:
      for (let x = 0; x < n; x++) out[x] = raw[src + x] + (((x >= bpp ? out[x - bpp] : 0) + (prev ? prev[x] : 0)) >> 1);
      break;
    case 4:
      for (let x = 0; x < n; x++) {
        const a = x >= bpp ? out[x - bpp] : 0;
        const b = prev ? prev[x] : 0;
        const c = x >= bpp && prev ? prev[x - bpp] : 0;
        out[x] = raw[src + x] + paeth(a, b, c);
      }
      break;
    default: throw new PngError(`PNG row has an unknown filter type ${f}`);
  }
}

// A big PNG decodes in slices: the thread (a page's main thread) gets control back
// every SLICE_MS, so no task blocks it for long.
const SLICE_MS = 30;
const clock = () => (globalThis.performance ?? Date).now();
const breathe = () => new Promise((resolve) => setTimeout(resolve, 0));

// Adam7: (x0, y0, dx, dy) of the seven passes.
const ADAM7 = [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]];

// One sample (channel c of pixel x) of an unfiltered row, at the file's bit depth.
function sampleAt(rows, rowStart, x, c, channels, bitDepth) {
  if (bitDepth === 8) return rows[rowStart + x * channels + c];
  if (bitDepth === 16) { const i = rowStart + (x * channels + c) * 2; return (rows[i] << 8) | rows[i + 1]; }
  const perByte = 8 / bitDepth; // sub-byte depths only occur with one channel
  const byte = rows[rowStart + Math.floor(x / perByte)];
  return (byte >> (8 - bitDepth * (1 + (x % perByte)))) & ((1 << bitDepth) - 1);
}

// → { rgba: Uint8ClampedArray (alpha 255: PIL's RGB), width, height }.
export async function decodePng(bytes) {
  const { width, height, bitDepth, colorType, interlace } = pngHeader(bytes);
  const channels = CHANNELS[colorType];
  if (!channels || !DEPTHS[colorType].includes(bitDepth)) {
    throw new PngError(`PNG colour type ${colorType} with bit depth ${bitDepth} is not valid`);
  }
  if (!width || !height) throw new PngError(`PNG of ${width}×${height} pixels has none`);
  if (interlace > 1) throw new PngError(`PNG interlace method ${interlace} is not valid`);
  let palette = null;
  const idat = [];
  for (const c of chunks(bytes)) {
    if (c.type === 'PLTE') palette = c.data;
    else if (c.type === 'IDAT') idat.push(c.data);
  }
  if (!idat.length) throw new PngError('PNG without image data (IDAT)');
  if (colorType === 3 && !palette) throw new PngError('palette PNG without a palette (PLTE)');
  const raw = await inflate(new Blob(idat));

  const rgba = new Uint8ClampedArray(width * height * 4).fill(255);
  // PIL's mode and its conversion to RGB, per colour type and depth: writes pixel x of an
  // unfiltered row at rgba[out].
  const grey = (v) => (bitDepth === 16 ? Math.min(v, 255) : bitDepth === 8 ? v : (v * 255) / ((1 << bitDepth) - 1));
  const colour = (v) => (bitDepth === 16 ? v >> 8 : v);
  const s = (rows, rowStart, x, c) => sampleAt(rows, rowStart, x, c, channels, bitDepth);
  let put;
  if (colorType === 3) {
    put = (rows, rowStart, x, out) => {
      const i = s(rows, rowStart, x, 0) * 3;
      if (i + 2 < palette.length) { rgba[out] = palette[i]; rgba[out + 1] = palette[i + 1]; rgba[out + 2] = palette[i + 2]; } else { rgba[out] = rgba[out + 1] = rgba[out + 2] = 0; }
    };
  } else if (bitDepth === 8 && channels >= 3) { // RGB, RGBA: the common case, kept simple and fast
    put = (rows, rowStart, x, out) => {
      const i = rowStart + x * channels;
      rgba[out] = rows[i]; rgba[out + 1] = rows[i + 1]; rgba[out + 2] = rows[i + 2];
    };
  } else if (colorType === 0 || colorType === 4) {
    const value = colorType === 0 ? grey : colour;
    put = (rows, rowStart, x, out) => { rgba[out] = rgba[out + 1] = rgba[out + 2] = value(s(rows, rowStart, x, 0)); };
  } else {
    put = (rows, rowStart, x, out) => {
      rgba[out] = colour(s(rows, rowStart, x, 0)); rgba[out + 1] = colour(s(rows, rowStart, x, 1)); rgba[out + 2] = colour(s(rows, rowStart, x, 2));
    };
  }

  const bitsPerPixel = channels * bitDepth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const passes = interlace ? ADAM7 : [[0, 0, 1, 1]];
  let offset = 0;
  let sliceStart = clock();
  for (const [x0, y0, dx, dy] of passes) {
    const pw = Math.ceil((width - x0) / dx);
    const ph = Math.ceil((height - y0) / dy);
    if (pw <= 0 || ph <= 0) continue;
    const rowBytes = Math.ceil((pw * bitsPerPixel) / 8);
    if (offset + ph * (rowBytes + 1) > raw.length) throw new PngError('PNG image data is shorter than its size says');
    let prev = null;
    let row = new Uint8Array(rowBytes);
    for (let y = 0; y < ph; y++) {
      unfilterRow(raw[offset], raw, offset + 1, row, prev, bpp);
      offset += rowBytes + 1;
      for (let x = 0; x < pw; x++) put(row, 0, x, ((y0 + y * dy) * width + x0 + x * dx) * 4);
      [prev, row] = [row, prev ?? new Uint8Array(rowBytes)];
      if (clock() - sliceStart > SLICE_MS) {
        await breathe();
        sliceStart = clock();
      }
    }
  }
  return { rgba, width, height };
}
