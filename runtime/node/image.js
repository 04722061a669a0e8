// @ts-check
// Node-only: decodes a photo file (PNG, JPEG, WebP, anything sharp reads) into RGBA bytes
// for the core's preprocess.
//
// EXIF orientation (exif option): 'ignore' keeps the stored pixels, as PIL's
// Image.open(...).convert('RGB') in the official pipeline does, so evaluations match it
// (the default here); 'use' rotates the photo the way viewers display it, which is what
// `vit-relevance explain` and the page show a person by default.
// An embedded ICC profile is always ignored, as PIL ignores it: the model sees the stored
// values (a third of the ImageNet samples carry a profile; converting them changed 3 of 500
// predictions).
// Size: photos above MAX_INPUT_PIXELS are refused from their header, before any pixel is
// decoded. Refusing (rather than shrinking on decode, as the page does for a browser tab)
// keeps every accepted photo on PIL's exact resize path, and bounds the CLI's memory
// (measured in tests/node/image-limits.test.js).
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { UserError } from '../errors.js';
import { isPng, pngHeader } from '../png-header.js';
import { decodePng } from '../png-decode.js';

export const EXIF_MODES = ['use', 'ignore'];
export const DEFAULT_EXIF = 'ignore'; // PIL's reading: what evaluations record in run.json
export const MAX_INPUT_PIXELS = 40_000_000;

class ImageError extends UserError {
  constructor(message) {
    super(message);
    this.name = 'ImageError';
  }
}

function checkExif(exif) {
  if (!EXIF_MODES.includes(exif)) throw new Error(`exif must be one of ${EXIF_MODES.join(', ')}, got ${JSON.stringify(exif)}`);
}

// → { rgba: Uint8Array (width·height·4), width, height }. Errors name the file.
export async function decodeImage(file, { exif = DEFAULT_EXIF } = {}) {
  checkExif(exif);
  let input;
  try {
    input = await readFile(file);
  } catch (err) {
    throw new ImageError(`cannot read image ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'it is a folder' : err.message}`);
  }
  return decodeImageBytes(input, file, { exif });
}

const count = (n) => n.toLocaleString('en-US');

// The size from the header alone; refuses photos too large to decode.
async function checkedSize(input, name) {
  let info;
  try {
    info = await sharp(input, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw new ImageError(`${name} is not a readable image (PNG, JPEG, WebP, …): ${err.message}`);
  }
  const pixels = info.width * info.height;
  if (pixels > MAX_INPUT_PIXELS) {
    throw new ImageError(`${name} is ${info.width}×${info.height} = ${count(pixels)} pixels; the CLI decodes photos of up to `
      + `${count(MAX_INPUT_PIXELS)} pixels: scale it down first`);
  }
  return info;
}

// PIL reads a 16-bit grey PNG as mode "I" and clips it to 255 in convert('RGB'); libvips
// scales it to 8 bits. Those PNGs go through the page's PIL-exact decoder instead (every
// other PNG mode decodes the same in both: tests/node/png-decode.test.js).
const isGrey16Png = (bytes) => isPng(bytes) && pngHeader(bytes).colorType === 0 && pngHeader(bytes).bitDepth === 16;

export async function decodeImageBytes(input, name = 'image', { exif = DEFAULT_EXIF } = {}) {
  checkExif(exif);
  await checkedSize(input, name);
  try {
    if (isGrey16Png(input)) {
      const { rgba, width, height } = await decodePng(new Uint8Array(input.buffer, input.byteOffset, input.byteLength));
      return { rgba: new Uint8Array(rgba.buffer), width, height };
    }
    let image = sharp(input, { failOn: 'error', ignoreIcc: true, limitInputPixels: MAX_INPUT_PIXELS });
    if (exif === 'use') image = image.rotate();
    const { data, info } = await image
      .ensureAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`decoded to ${info.channels} channels, expected RGBA`);
    return {
      rgba: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      width: info.width,
      height: info.height,
    };
  } catch (err) {
    throw new ImageError(`${name} is not a readable image (PNG, JPEG, WebP, …): ${err.message}`);
  }
}
