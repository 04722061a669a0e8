// @ts-check
// The stored size of a PNG, JPEG, GIF or WebP photo, read from the first bytes of its file.
// The page uses it to skip its size probe (an <img> element, about 5 ms per photo) for
// photos it can decode as they are (./image-input.js). Stored, not oriented: the EXIF
// orientation may swap the two sides, which does not matter for a photo needing no
// resize. Anything this does not recognise gives null, never an error.

// Enough of a file for its header's size: a JPEG's frame header follows its EXIF (at most
// 64 KB) and often a colour profile.
export const HEADER_BYTES = 128 * 1024;

const u16be = (b, i) => (b[i] << 8) | b[i + 1];
const u16le = (b, i) => b[i] | (b[i + 1] << 8);
const u24le = (b, i) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16);
const u32be = (b, i) => ((b[i] << 24) >>> 0) + ((b[i + 1] << 16) | (b[i + 2] << 8) | b[i + 3]);
const ascii = (b, i, text) => [...text].every((c, k) => b[i + k] === c.charCodeAt(0));

function png(b) {
  if (b.length < 24 || b[0] !== 0x89 || !ascii(b, 1, 'PNG\r\n\x1a\n') || !ascii(b, 12, 'IHDR')) return null;
  return { width: u32be(b, 16), height: u32be(b, 20) };
}

// The first start-of-frame segment's size; the scan stops at the image data (SOS).
function jpeg(b) {
  if (b[0] !== 0xff || b[1] !== 0xd8) return null;
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1];
    if (marker === 0xff) { at += 1; continue; } // fill byte
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; } // no length
    if (marker === 0xda || marker === 0xd9) return null;
    const length = u16be(b, at + 2);
    // SOF0–SOF15 but DHT (c4), JPG (c8) and DAC (cc): precision, height, width
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return null;
      return { width: u16be(b, at + 7), height: u16be(b, at + 5) };
    }
    at += 2 + length;
  }
  return null;
}

function gif(b) {
  if (b.length < 10 || !(ascii(b, 0, 'GIF87a') || ascii(b, 0, 'GIF89a'))) return null;
  return { width: u16le(b, 6), height: u16le(b, 8) };
}

function webp(b) {
  if (b.length < 30 || !ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP')) return null;
  if (ascii(b, 12, 'VP8X')) return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
  if (ascii(b, 12, 'VP8L') && b[20] === 0x2f) {
    const bits = b[21] | (b[22] << 8) | (b[23] << 16) | (b[24] << 24);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (ascii(b, 12, 'VP8 ') && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a) {
    return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
  }
  return null;
}

/**
 * The width and height a photo's header states, or null.
 * @param {Uint8Array} bytes the file's first bytes (a JPEG's frame header may follow its
 *   EXIF and colour profile: give some tens of KB)
 * @returns {{ width: number, height: number } | null}
 */
export function headerSize(bytes) {
  const size = png(bytes) ?? jpeg(bytes) ?? gif(bytes) ?? webp(bytes);
  return size && size.width > 0 && size.height > 0 ? size : null;
}
