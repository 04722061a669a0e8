// @ts-check
// Node-only: writes RGBA pixels as a PNG file (the CLI's overlays), with a caption band
// under them (runtime/caption-svg.js).
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { captionBandSvg } from '../caption-svg.js';

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

// The picture (a PNG buffer `width` wide, or RGBA with its height) with the caption band of
// `band` (captionBandSvg's fields but the width) under it.
export async function writeCaptionedPng(file, picture, width, band) {
  const png = picture.rgba ? await encodePng(picture.rgba, width, picture.height) : picture;
  const { svg, height } = captionBandSvg({ width, ...band });
  await sharp(png).extend({ bottom: height, background: '#ffffff' })
    .composite([{ input: Buffer.from(svg), gravity: 'south' }]).png().toFile(file);
}
