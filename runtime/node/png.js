// @ts-check
// Node-only: writes RGBA pixels as a PNG file (the CLI's overlays).
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';

export async function encodePng(rgba, width, height) {
  if (rgba.length !== width * height * 4) {
    throw new Error(`encodePng: ${rgba.length} bytes is not ${width}×${height} RGBA`);
  }
  const buf = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  return sharp(buf, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

export async function writePng(file, rgba, width, height) {
  await writeFile(file, await encodePng(rgba, width, height));
}
