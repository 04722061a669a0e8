// runtime/png-decode.js, the page's decoder for PNGs the canvas reads differently from PIL:
// every PNG colour type and bit depth, with and without alpha or tRNS, interlaced or not,
// decodes to the same RGB bytes as PIL's Image.open(...).convert('RGB'), and so does the
// CLI's decoder (runtime/node/image.js). The files are written by PIL and by libvips
// (sharp), so the filters and layouts are real encoders'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { decodePng } from '../../runtime/png-decode.js';
import { isPng, pngNeedsOwnDecoder, PngError } from '../../runtime/png-header.js';
import { decodeImageBytes } from '../../runtime/node/image.js';
import { tempDir } from './maps-support.js';

const PYTHON = '/usr/bin/python3';
const skip = spawnSync(PYTHON, ['-c', 'import PIL, numpy']).status === 0 ? false : `${PYTHON} with PIL and numpy is needed`;
const dir = tempDir('vitrel-png-');

// Colours under alpha 0 and partial alpha, as in a cut-out photo.
function noiseRgba(w, h, seed) {
  const out = Buffer.alloc(w * h * 4);
  let s = seed;
  for (let i = 0; i < out.length; i++) { s = (s * 1103515245 + 12345) >>> 0; out[i] = s >>> 23; }
  for (let i = 3; i < out.length; i += 16) out[i] = 0;
  return out;
}

// PIL writes the modes it can (1, 2-bit palette, 16-bit grey, LA, P + tRNS, RGB + tRNS).
const PIL_WRITER = `import sys, numpy as np
from PIL import Image
d = sys.argv[1]; rng = np.random.default_rng(5); w, h = 37, 23
px = lambda *shape: rng.integers(0, 256, (h, w) + shape, dtype=np.uint8)
Image.fromarray(px() > 127).save(f"{d}/mode1.png")
Image.fromarray(px()).save(f"{d}/grey8.png")
Image.fromarray(rng.integers(0, 65536, (h, w), dtype=np.uint16)).save(f"{d}/grey16.png")
Image.fromarray(rng.integers(0, 300, (h, w)).astype(np.uint16)).save(f"{d}/grey16-low.png")
Image.fromarray(px(2), 'LA').save(f"{d}/la8.png")
p = Image.fromarray(px() % 4, 'P'); p.putpalette(list(range(12))); p.save(f"{d}/p2.png", bits=2)
p = Image.fromarray(px(), 'P'); p.putpalette(list(rng.integers(0, 256, 768))); p.save(f"{d}/p8-trns.png", transparency=7)
Image.fromarray(px(3)).save(f"{d}/rgb-trns.png", transparency=(10, 20, 30))
Image.fromarray(px(3)).save(f"{d}/rgb8.png")
Image.fromarray(px(4)).save(f"{d}/rgba8.png")
`;

async function writeFiles() {
  const r = spawnSync(PYTHON, ['-c', PIL_WRITER, dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const raw = { raw: { width: 41, height: 29, channels: 4 } };
  const rgba = noiseRgba(41, 29, 3);
  // libvips: 8- and 16-bit RGBA, Adam7-interlaced, palette with alpha, grey + alpha.
  writeFileSync(path.join(dir, 'vips-rgba8.png'), await sharp(rgba, raw).png({ compressionLevel: 9 }).toBuffer());
  writeFileSync(path.join(dir, 'vips-rgba16.png'), await sharp(rgba, raw).toColourspace('rgb16').png().toBuffer());
  writeFileSync(path.join(dir, 'vips-interlaced.png'), await sharp(rgba, raw).png({ progressive: true }).toBuffer());
  writeFileSync(path.join(dir, 'vips-palette.png'), await sharp(rgba, raw).png({ palette: true, colours: 16 }).toBuffer());
  writeFileSync(path.join(dir, 'vips-grey-alpha16.png'), await sharp(rgba, raw).toColourspace('grey16').png().toBuffer());
  return readdirSync(dir).filter((f) => f.endsWith('.png')).sort();
}

function pilRgb(file) {
  const out = `${file}.rgb`;
  const r = spawnSync(PYTHON, ['-c', `import sys, numpy as np; from PIL import Image
im = Image.open(sys.argv[1]); np.asarray(im.convert('RGB')).tofile(sys.argv[2]); print(im.mode, *im.size)`, file, out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return { bytes: readFileSync(out), mode: r.stdout.trim() };
}

const rgbOf = (rgba, pixels) => {
  const rgb = Buffer.alloc(pixels * 3);
  for (let i = 0; i < pixels; i++) rgb.set(rgba.subarray(i * 4, i * 4 + 3), i * 3);
  return rgb;
};

test('every PNG colour type and depth decodes to PIL\'s convert("RGB") bytes, in the page and the CLI', { skip }, async () => {
  const files = await writeFiles();
  assert.ok(files.length >= 15, files.join(' '));
  for (const name of files) {
    const file = path.join(dir, name);
    const bytes = new Uint8Array(readFileSync(file));
    const ours = await decodePng(bytes);
    const pil = pilRgb(file);
    assert.equal(Buffer.compare(rgbOf(ours.rgba, ours.width * ours.height), pil.bytes), 0, `${name} (PIL mode ${pil.mode}) differs from PIL`);
    const cli = await decodeImageBytes(readFileSync(file), name);
    assert.equal(Buffer.compare(rgbOf(cli.rgba, cli.width * cli.height), pil.bytes), 0, `CLI: ${name} (PIL mode ${pil.mode}) differs from PIL`);
    assert.ok(ours.rgba.every((v, i) => i % 4 !== 3 || v === 255), `${name}: alpha is dropped`);
  }
});

test('which PNGs the page decodes itself: alpha, tRNS or 16-bit', { skip }, async () => {
  const files = await writeFiles();
  const own = files.filter((name) => pngNeedsOwnDecoder(new Uint8Array(readFileSync(path.join(dir, name)))));
  assert.deepEqual(own, ['grey16-low.png', 'grey16.png', 'la8.png', 'p8-trns.png', 'rgb-trns.png', 'rgba8.png',
    'vips-grey-alpha16.png', 'vips-interlaced.png', 'vips-palette.png', 'vips-rgba16.png', 'vips-rgba8.png']);
  assert.equal(pngNeedsOwnDecoder(new Uint8Array([0xff, 0xd8, 0xff])), false, 'a JPEG is left to the browser');
});

test('damaged PNGs get a specific error', async () => {
  const good = new Uint8Array(await sharp(noiseRgba(8, 8, 1), { raw: { width: 8, height: 8, channels: 4 } }).png().toBuffer());
  assert.ok(isPng(good));
  await assert.rejects(decodePng(good.subarray(0, 40)), (e) => e instanceof PngError && /runs past the end|without image data/.test(e.message));
  const bad = good.slice();
  bad[25] = 5; // colour type 5 does not exist
  await assert.rejects(decodePng(bad), /colour type 5 with bit depth 8 is not valid/);
  await assert.rejects(decodePng(new Uint8Array(8)), /not a PNG file/);
});
