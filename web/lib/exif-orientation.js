// The page's "ignore EXIF orientation" setting (PIL's reading: the stored pixels, as the
// evaluations see them). Browsers now always honour the tag (createImageBitmap's
// imageOrientation 'none' behaves as 'from-image'), so the tag itself is rewritten to 1
// ("as stored") in a copy of the file. JPEG only: the format that carries it in practice.

const ORIENTATION_TAG = 0x0112;

// Offset of IFD0's orientation value inside `view`, or -1. `tiff` is where the TIFF
// header of the Exif block starts.
function orientationOffset(view, tiff, end) {
  if (tiff + 8 > end) return -1;
  const little = view.getUint16(tiff) === 0x4949; // "II"
  const u16 = (at) => view.getUint16(at, little);
  const u32 = (at) => view.getUint32(at, little);
  const ifd = tiff + u32(tiff + 4);
  if (ifd + 2 > end) return -1;
  const count = u16(ifd);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > end) return -1;
    if (u16(entry) === ORIENTATION_TAG) return entry + 8; // SHORT value, left-aligned
  }
  return -1;
}

// → the bytes with the JPEG's orientation set to 1 (a copy), or the same bytes when there
// is nothing to change.
export function withoutOrientation(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4 || view.getUint16(0) !== 0xffd8) return bytes; // not a JPEG
  for (let at = 2; at + 4 <= bytes.length;) {
    const marker = view.getUint16(at);
    if ((marker & 0xff00) !== 0xff00 || marker === 0xffda) return bytes; // image data: no Exif before it
    const length = view.getUint16(at + 2);
    const end = Math.min(bytes.length, at + 2 + length);
    const isExif = marker === 0xffe1 && at + 10 <= end
      && String.fromCharCode(...bytes.subarray(at + 4, at + 8)) === 'Exif';
    if (isExif) {
      const value = orientationOffset(view, at + 10, end);
      if (value < 0 || value + 2 > end) return bytes;
      const little = view.getUint16(at + 10) === 0x4949;
      if (view.getUint16(value, little) === 1) return bytes;
      const copy = bytes.slice();
      new DataView(copy.buffer).setUint16(value, 1, little);
      return copy;
    }
    at += 2 + length;
  }
  return bytes;
}
