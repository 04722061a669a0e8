// Photo decoding for the CLI and evaluations (runtime/node/image.js) and the page's
// "ignore EXIF orientation" rewrite (web/lib/exif-orientation.js): EXIF orientation is
// applied only when asked, 'ignore' reads exactly what PIL reads, and photos over the
// pixel limit are refused from their header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { decodeImage, decodeImageBytes, MAX_INPUT_PIXELS } from '../../runtime/node/image.js';
import { withoutOrientation } from '../../web/lib/exif-orientation.js';
import { UserError } from '../../runtime/errors.js';
import { tempDir } from './maps-support.js';

const PYTHON = '/usr/bin/python3';
const dir = tempDir('vitrel-decode-');

// A 96×64 JPEG stored landscape, tagged "rotate 90° clockwise to display" (orientation 6).
async function rotatedJpeg() {
  const file = path.join(dir, 'orientation-6.jpg');
  const stripes = Buffer.alloc(96 * 64 * 3);
  for (let i = 0; i < 96 * 64; i++) stripes.set(i % 96 < 48 ? [200, 40, 40] : [40, 40, 200], i * 3);
  writeFileSync(file, await sharp(stripes, { raw: { width: 96, height: 64, channels: 3 } })
    .jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer());
  return file;
}

test('EXIF orientation: "use" rotates as viewers show the photo, "ignore" (the default) keeps the stored pixels', async () => {
  const file = await rotatedJpeg();
  const used = await decodeImage(file, { exif: 'use' });
  const ignored = await decodeImage(file, { exif: 'ignore' });
  assert.deepEqual([used.width, used.height], [64, 96]);
  assert.deepEqual([ignored.width, ignored.height], [96, 64]);
  assert.deepEqual(await decodeImage(file), ignored, 'evaluations (the default) read the stored pixels');
  await assert.rejects(decodeImage(file, { exif: 'rotate' }), /exif must be one of use, ignore/);
});

test('"ignore" decodes bit-identically to PIL', {
  skip: spawnSync(PYTHON, ['-c', 'import PIL, numpy']).status === 0 ? false : `${PYTHON} with PIL and numpy is needed`,
}, async () => {
  const file = await rotatedJpeg();
  const ours = await decodeImage(file, { exif: 'ignore' });
  const raw = path.join(dir, 'pil.rgba');
  const r = spawnSync(PYTHON, ['-c', `import sys, numpy as np; from PIL import Image
im = Image.open(sys.argv[1]); assert im.getexif().get(0x0112) == 6
np.asarray(im.convert('RGBA')).tofile(sys.argv[2]); print(*im.size)`, file, raw], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '96 64');
  const pil = readFileSync(raw);
  assert.equal(Buffer.compare(Buffer.from(ours.rgba), pil), 0, 'same bytes as PIL');
});

test('photos over the pixel limit are refused from their header, naming the size and the limit', async () => {
  const side = Math.ceil(Math.sqrt(MAX_INPUT_PIXELS)) + 1;
  const png = await sharp({ create: { width: side, height: side, channels: 3, background: '#808080' } }).png().toBuffer();
  await assert.rejects(decodeImageBytes(png, 'big.png'), (err) => err instanceof UserError
    && err.message === `big.png is ${side}×${side} = ${(side * side).toLocaleString('en-US')} pixels; the CLI decodes photos of up to 40,000,000 pixels: scale it down first`);
  const limit = await sharp({ create: { width: 8000, height: MAX_INPUT_PIXELS / 8000, channels: 3, background: '#808080' } }).png().toBuffer();
  assert.equal((await decodeImageBytes(limit, 'limit.png')).width, 8000, 'exactly the limit is accepted');
});

test('the page\'s rewrite sets the JPEG orientation to 1 and changes nothing else', async () => {
  const file = await rotatedJpeg();
  const bytes = new Uint8Array(readFileSync(file));
  const rewritten = withoutOrientation(bytes);
  assert.notEqual(rewritten, bytes, 'a copy');
  assert.equal((await sharp(bytes).metadata()).orientation, 6, 'the original is untouched');
  assert.equal((await sharp(rewritten).metadata()).orientation, 1);
  const differing = bytes.reduce((n, b, i) => n + (b !== rewritten[i]), 0);
  assert.equal(differing, 1, 'one byte: the orientation value');
  assert.equal(withoutOrientation(rewritten), rewritten, 'orientation 1: nothing to change');
  const png = new Uint8Array(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).png().toBuffer());
  assert.equal(withoutOrientation(png), png, 'not a JPEG: unchanged');
  for (const n of [0, 3, 12, 30, 60]) withoutOrientation(bytes.subarray(0, n)); // truncated files do not throw
});
