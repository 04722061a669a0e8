// Photo folders for the end-to-end evaluation tests, made from the ImageNet samples.
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { shared, tempDir } from './maps-support.js';

export const samples = path.join(shared, 'imagenet', 'samples');

// Photos, with masks the test draws: a centre square at the photo's size, or at half size.
export async function segmentationFolder() {
  const dir = tempDir('vitrel-seg-');
  const images = path.join(dir, 'images');
  const masks = path.join(dir, 'masks');
  await mkdir(images);
  await mkdir(masks);
  const photos = ['n01440764_tench', 'n01484850_great_white_shark', 'n01494475_hammerhead', 'n01498041_stingray'];
  for (const [i, stem] of photos.entries()) {
    await copyFile(path.join(samples, `${stem}.JPEG`), path.join(images, `${stem}.JPEG`));
    if (i === 3) continue; // no mask: listed as skipped
    const { width, height } = await sharp(path.join(samples, `${stem}.JPEG`)).metadata();
    const [w, h] = i === 1 ? [Math.round(width / 2), Math.round(height / 2)] : [width, height];
    const pixels = Buffer.alloc(w * h);
    for (let y = Math.floor(h / 4); y < (3 * h) / 4; y++) pixels.fill(255, y * w + Math.floor(w / 4), y * w + Math.ceil((3 * w) / 4));
    await sharp(pixels, { raw: { width: w, height: h, channels: 1 } }).png().toFile(path.join(masks, `${stem}.png`));
  }
  return { dir, images, masks };
}
