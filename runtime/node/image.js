// Node-only: decodes a photo file (PNG, JPEG, WebP, anything sharp reads) into RGBA bytes
// for the core's preprocess. EXIF orientation is applied (.rotate()) so a portrait phone
// photo is explained the way it is displayed. An embedded ICC profile is ignored, as
// PIL's Image.open(...).convert('RGB') in the official pipeline ignores it: the model sees
// the stored values (a third of the ImageNet samples carry a profile; converting them
// changed 3 of 500 predictions).
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';

// → { rgba: Uint8Array (width·height·4), width, height }. Errors name the file.
export async function decodeImage(file) {
  let input;
  try {
    input = await readFile(file);
  } catch (err) {
    throw new Error(`cannot read image ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  return decodeImageBytes(input, file);
}

export async function decodeImageBytes(input, name = 'image') {
  try {
    const { data, info } = await sharp(input, { failOn: 'error', ignoreIcc: true })
      .rotate()
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
    throw new Error(`${name} is not a readable image (PNG, JPEG, WebP, …): ${err.message}`);
  }
}
