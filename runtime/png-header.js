// @ts-check
// A PNG's signature, chunks and header, and whether a browser's canvas reads its pixels
// differently from PIL (./png-decode.js says how, and decodes those): what every PNG photo
// needs, apart from the decoder, which the page loads only for such a PNG.
// Environment-neutral.

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

export class PngError extends Error {}

export function isPng(bytes) {
  return bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);
}

const u32 = (b, o) => ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
const type = (b, o) => String.fromCharCode(b[o], b[o + 1], b[o + 2], b[o + 3]);

// Every chunk before IEND as { type, data } (data a view into `bytes`).
export function* chunks(bytes) {
  let o = 8;
  while (o + 8 <= bytes.length) {
    const length = u32(bytes, o);
    const t = type(bytes, o + 4);
    if (o + 12 + length > bytes.length) throw new PngError(`PNG chunk ${t} runs past the end of the file`);
    yield { type: t, data: bytes.subarray(o + 8, o + 8 + length) };
    if (t === 'IEND') return;
    o += 12 + length;
  }
}

// { width, height, bitDepth, colorType, interlace } from the IHDR chunk.
export function pngHeader(bytes) {
  if (!isPng(bytes)) throw new PngError('not a PNG file');
  const first = chunks(bytes).next().value;
  if (!first || first.type !== 'IHDR' || first.data.length !== 13) throw new PngError('PNG without an IHDR header');
  const d = first.data;
  return { width: u32(d, 0), height: u32(d, 4), bitDepth: d[8], colorType: d[9], interlace: d[12] };
}

// Whether the canvas would read this PNG differently from PIL (header chunks only).
export function pngNeedsOwnDecoder(bytes) {
  if (!isPng(bytes)) return false;
  const { bitDepth, colorType } = pngHeader(bytes);
  if (bitDepth === 16 || colorType === 4 || colorType === 6) return true;
  for (const c of chunks(bytes)) {
    if (c.type === 'tRNS') return true;
    if (c.type === 'IDAT') return false;
  }
  return false;
}
