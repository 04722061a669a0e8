// web/lib/image-header.js: the size a photo's header states, which lets the page skip its
// size probe. Checked against libvips (sharp) on the shared photos and on files sharp
// writes in every layout the reader handles; anything else must give null, never throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import sharp from 'sharp';
import { headerSize, HEADER_BYTES } from '../../web/lib/image-header.js';
import { projectPaths } from '../../scripts/paths.js';

const head = (bytes) => new Uint8Array(bytes.subarray(0, HEADER_BYTES)); // as much as the page reads

test('the shared photos: the size libvips reads', async () => {
  const dir = projectPaths().sampleImages;
  const files = readdirSync(dir).filter((f) => /\.(png|jpe?g)$/i.test(f));
  assert.ok(files.length >= 5, `photos in ${dir}`);
  for (const f of files) {
    const bytes = readFileSync(path.join(dir, f));
    const { width, height } = await sharp(bytes).metadata();
    assert.deepEqual(headerSize(head(bytes)), { width, height }, f);
  }
});

test('every layout: PNG, baseline and progressive JPEG, GIF, WebP lossy, lossless and extended', async () => {
  const raw = (w, h, channels) => sharp(Buffer.alloc(w * h * channels, 97), { raw: { width: w, height: h, channels } });
  const layouts = {
    png: (img) => img.png(),
    jpeg: (img) => img.jpeg(),
    'progressive jpeg': (img) => img.jpeg({ progressive: true }),
    'jpeg with EXIF': (img) => img.jpeg().withMetadata({ orientation: 6 }),
    gif: (img) => img.gif(),
    'webp lossy (VP8)': (img) => img.webp({ quality: 80 }),
    'webp lossless (VP8L)': (img) => img.webp({ lossless: true }),
  };
  for (const [w, h] of [[16, 16], [225, 224], [640, 371], [4096, 17], [3001, 4000]]) {
    for (const [name, write] of Object.entries(layouts)) {
      const bytes = await write(raw(w, h, 3)).toBuffer();
      assert.deepEqual(headerSize(head(bytes)), { width: w, height: h }, `${name} ${w}×${h}`);
    }
    // alpha in a lossy WebP needs the extended layout (VP8X)
    const extended = await raw(w, h, 4).webp({ quality: 80 }).toBuffer();
    assert.equal(String.fromCharCode(...extended.subarray(12, 16)), 'VP8X');
    assert.deepEqual(headerSize(head(extended)), { width: w, height: h }, `webp VP8X ${w}×${h}`);
  }
});

test('a header cut short, another format or no image at all: null', async () => {
  const jpeg = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } }).jpeg().toBuffer();
  const png = await sharp({ create: { width: 300, height: 200, channels: 3, background: '#808080' } }).png().toBuffer();
  for (const cut of [0, 1, 2, 10, 20, 23]) assert.equal(headerSize(new Uint8Array(png.subarray(0, cut))), null, `png cut at ${cut}`);
  // a JPEG cut before its frame header
  const sof = jpeg.findIndex((b, i) => b === 0xff && jpeg[i + 1] === 0xc0);
  assert.ok(sof > 0);
  assert.equal(headerSize(new Uint8Array(jpeg.subarray(0, sof + 4))), null);
  const tiff = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#808080' } }).tiff().toBuffer();
  assert.equal(headerSize(new Uint8Array(tiff)), null, 'TIFF is not read here');
  assert.equal(headerSize(new TextEncoder().encode('GIF89a')), null);
  // a zero side is no size
  const zero = new Uint8Array(png.subarray(0, 24));
  zero.set([0, 0, 0, 0], 16);
  assert.equal(headerSize(zero), null);
});

test('any bytes: a size of positive whole numbers, or null, never an error', () => {
  const prefixes = [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0xff, 0xd8], [...'GIF89a'].map((c) => c.charCodeAt(0)),
    [...'RIFF\0\0\0\0WEBP'].map((c) => c.charCodeAt(0)), []];
  fc.assert(fc.property(fc.constantFrom(...prefixes), fc.uint8Array({ maxLength: 200 }), (prefix, rest) => {
    const size = headerSize(Uint8Array.from([...prefix, ...rest]));
    return size === null || [size.width, size.height].every((n) => Number.isInteger(n) && n > 0);
  }), { numRuns: 3000 });
});
