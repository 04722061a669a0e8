// What `vit-relevance explain` writes: the same bytes for the same inputs (timings only
// in the opt-in timings.json), photos as a viewer shows them unless --exif ignore, and a
// bounded peak memory on the largest photo it accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { MAX_INPUT_PIXELS } from '../../runtime/node/image.js';
import { cli, runCli, tempDir } from './maps-support.js';
import { coreBuilt, deitMethodIds, deitModel, images, skipDeit } from './explain-support.js';
import { tinyExplainerOnnx, tinyMetadata } from './explainer-fixture.js';

const dir = tempDir('vitrel-explain-out-');
const files = (d) => readdirSync(d).sort();

function tinyModel() {
  const model = path.join(dir, 'tiny.onnx');
  writeFileSync(model, tinyExplainerOnnx());
  writeFileSync(path.join(dir, 'tiny.json'), JSON.stringify(tinyMetadata()));
  return model;
}

test('two runs write byte-identical files; --timings adds timings.json and changes nothing else', { skip: skipDeit }, async () => {
  const photo = path.join(images, 'catdog.png');
  const [a, b] = [path.join(dir, 'run-a'), path.join(dir, 'run-b')];
  const args = [photo, '--model', deitModel, '--class', '243', '--class', '282', '--method', 'all'];
  const ra = runCli(['explain', ...args, '--out', a]);
  assert.equal(ra.status, 0, ra.stderr);
  const rb = runCli(['explain', ...args, '--timings', '--out', b]);
  assert.equal(rb.status, 0, rb.stderr);
  assert.deepEqual(files(b), [...files(a), 'timings.json'].sort());
  assert.equal(files(a).length, 1 + 2 * (await deitMethodIds()).length, 'maps.json and one PNG per target and method');
  for (const name of files(a)) {
    assert.ok(readFileSync(path.join(a, name)).equals(readFileSync(path.join(b, name))), `${name} differs between two runs`);
  }
  assert.doesNotMatch(readFileSync(path.join(a, 'maps.json'), 'utf8'), /timings|Ms"/);
  const timings = JSON.parse(readFileSync(path.join(b, 'timings.json'), 'utf8'));
  for (const key of ['loadMs', 'preprocessMs', 'modelMs', 'relevanceMs', 'overlayMs', 'totalMs']) assert.ok(timings[key] >= 0, key);
});

test('EXIF orientation: applied by default, kept as stored with --exif ignore (recorded in maps.json)', {
  skip: coreBuilt ? false : 'the WebAssembly core is not built: run `npm run build`',
}, async () => {
  const model = tinyModel();
  const photo = path.join(dir, 'orientation-6.jpg');
  await sharp(path.join(images, 'catdog.png')).resize(96, 64, { fit: 'fill' }).jpeg()
    .withMetadata({ orientation: 6 }).toFile(photo);
  const run = async (extra, out) => {
    const r = runCli(['explain', photo, '--model', model, '--class', '0', '--method', 'raw_attention', ...extra, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const { image } = JSON.parse(readFileSync(path.join(out, 'maps.json'), 'utf8'));
    const png = await sharp(path.join(out, '0-tabby-raw_attention.png')).metadata();
    return { image, png: [png.width, png.height] };
  };
  const used = await run([], path.join(dir, 'exif-use'));
  assert.deepEqual([used.image.width, used.image.height, used.image.exif], [64, 96, 'use']);
  // The photo as shown, then its caption band under it.
  assert.ok(used.png[0] === 64 && used.png[1] > 96, `${used.png}`);
  const ignored = await run(['--exif', 'ignore'], path.join(dir, 'exif-ignore'));
  assert.deepEqual([ignored.image.width, ignored.image.height, ignored.image.exif], [96, 64, 'ignore']);
  assert.ok(ignored.png[0] === 96 && ignored.png[1] > 64, `${ignored.png}`);
});

// The peak resident memory of the child, read by a preload from /proc/self/status at exit.
function peakMemoryMiB(args) {
  const peakFile = path.join(dir, `peak-${Date.now()}.txt`);
  const preload = path.join(dir, 'peak-preload.cjs');
  writeFileSync(preload, `process.on('exit', () => {
    const fs = require('node:fs');
    fs.writeFileSync(${JSON.stringify(peakFile)}, /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]);
  });\n`);
  const r = spawnSync(process.execPath, ['--require', preload, cli, ...args], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return Number(readFileSync(peakFile, 'utf8')) / 1024;
}

test('the largest photo accepted is explained (all methods) within 1.5 GB of memory', {
  skip: skipDeit || (existsSync('/proc/self/status') ? false : 'reads the peak memory from /proc (Linux)'),
}, async () => {
  // MAX_INPUT_PIXELS exactly, with content (a flat photo would compress every step away).
  const [width, height] = [8000, MAX_INPUT_PIXELS / 8000];
  const photo = path.join(dir, 'largest.png');
  await sharp({ create: { width, height, channels: 3, background: '#6a8caf' } })
    .composite([{ input: path.join(images, 'catdog.png'), left: 3000, top: 2000 }]).png().toFile(photo);
  const peak = peakMemoryMiB(['explain', photo, '--model', deitModel, '--method', 'all', '--out', path.join(dir, 'largest')]);
  console.log(`peak memory explaining a ${width}×${height} photo with every method: ${peak.toFixed(0)} MiB`);
  assert.ok(peak <= 1536, `peak ${peak.toFixed(0)} MiB > 1.5 GiB`);
  assert.equal(readdirSync(path.join(dir, 'largest')).length, 1 + (await deitMethodIds()).length);
});
