// The files the hostile cases (./cases.js) point at, written once into a temporary folder:
// small valid tensors and photos, the tiny hand-written explainer graph with metadata that
// does and does not fit it, broken files, and folders that cannot take output. Cases name
// them as <tmp>/NAME (and the repository as <repo>), so their messages read the same on
// every machine.
import { spawnSync } from 'node:child_process';
import { writeTextModel } from '../node/text-model-fixture.js';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { formatNpy } from '../../runtime/npy.js';
import { repo } from './run.js';
import { tinyExplainerOnnx, tinyMetadata, TINY } from '../node/explainer-fixture.js';

const { blocks: B, heads: H, tokens: S, size: [PH, PW] } = TINY;

const filled = (shape, value = 1 / S) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(value), shape });

// A .npy header around arbitrary data bytes (dtype, order and shape as given).
function rawNpy(descr, shape, dataBytes, fortran = false) {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const head = Buffer.alloc(10);
  Buffer.from([0x93, ...Buffer.from('NUMPY'), 1, 0]).copy(head);
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, 'latin1'), Buffer.from(dataBytes)]);
}

// Metadata of the tiny graph with `architecture` fields replaced (labels follow num_classes).
function tinyWith(fields) {
  const m = tinyMetadata();
  m.architecture = { ...m.architecture, ...fields };
  if (fields.num_classes) {
    m.labels = Array.from({ length: fields.num_classes }, (_, i) => `class ${i}`);
    delete m.label_names;
  }
  return m;
}

export async function writeFixtures() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vitrel-hostile-'));
  const at = (...p) => path.join(dir, ...p);
  const write = (name, bytes) => { mkdirSync(path.dirname(at(name)), { recursive: true }); writeFileSync(at(name), bytes); };

  // explain --text: a text model that answers before its graph opens, and text files
  writeTextModel(at('models', 'text'));
  write('texts/empty-line.txt', 'a good film\n\nbad\n');
  write('texts/not-utf8.txt', Buffer.concat([Buffer.from('good\nvery '), Buffer.from([0xc3, 0x28]), Buffer.from(' bad\n')]));

  // maps: valid tensors, then broken ones
  write('attn.npy', formatNpy(filled([B, H, S, S])));
  write('grad.npy', formatNpy(filled([B, H, S, S], 0.25)));
  write('rel.npy', formatNpy(filled([B, H, S, S], 0.5)));
  write('rel-last.npy', formatNpy(filled([H, S, S], 0.5)));
  write('scalar.npy', formatNpy({ data: new Float32Array([1]), shape: [] }));
  write('rank3.npy', formatNpy(filled([H, S, S])));
  write('short.npy', formatNpy(filled([B, H, S, S - 1])));
  write('odd.npy', formatNpy(filled([1, 1, 7, 7])));
  write('empty-tokens.npy', formatNpy({ data: new Float32Array(0), shape: [B, H, 0, 0] }));
  const nan = filled([B, H, S, S]);
  nan.data[17] = NaN;
  write('nan.npy', formatNpy(nan));
  const inf = filled([B, H, S, S]);
  inf.data[3] = -Infinity;
  write('inf.npy', formatNpy(inf));
  write('float64.npy', rawNpy('<f8', [B, H, S, S], new Float64Array(B * H * S * S).buffer));
  write('bigendian.npy', rawNpy('>f4', [B, H, S, S], new Float32Array(B * H * S * S).buffer));
  write('int32.npy', rawNpy('<i4', [B, H, S, S], new Int32Array(B * H * S * S).buffer));
  write('fortran.npy', rawNpy('<f4', [B, H, S, S], new Float32Array(B * H * S * S).buffer, true));
  write('truncated-data.npy', rawNpy('<f4', [B, H, S, S], new Float32Array(10).buffer));
  write('extra-data.npy', rawNpy('<f4', [2], new Float32Array(5).buffer));
  write('truncated-header.npy', Buffer.from([0x93, ...Buffer.from('NUMPY'), 1, 0, 0x76]));
  write('version9.npy', Buffer.concat([Buffer.from([0x93, ...Buffer.from('NUMPY'), 9, 0]), Buffer.alloc(64)]));
  write('malformed-header.npy', rawNpy('<f4', ['x'], []).toString('latin1').replace("'shape'", "'shapes'"));
  write('not-numpy.npy', 'hello, not numpy');
  write('empty.npy', '');
  write('notes.txt', 'hello');
  mkdirSync(at('folder.npy'));

  // explain: the tiny graph (4×4 input, 4 classes) with fitting and unfitting metadata
  const model = (name, metadata, bytes = tinyExplainerOnnx()) => {
    write(`models/${name}.onnx`, bytes);
    if (metadata !== undefined) write(`models/${name}.json`, typeof metadata === 'string' ? metadata : JSON.stringify(metadata));
  };
  model('tiny', tinyMetadata());
  model('not-onnx', tinyMetadata(), 'this is not a protobuf');
  model('empty-onnx', tinyMetadata(), '');
  model('lonely', undefined);
  model('bad-json', '{ "format": ');
  model('array-json', '[1, 2]');
  model('other-format', { ...tinyMetadata(), format: 'something-else' });
  model('version-2', { ...tinyMetadata(), format_version: 2 });
  model('no-arch', { ...tinyMetadata(), architecture: undefined });
  model('no-outputs-meta', { ...tinyMetadata(), outputs: undefined });
  model('labels-short', { ...tinyMetadata(), labels: ['a', 'b'], label_names: undefined });
  model('bad-std', { ...tinyMetadata(), preprocess: { ...tinyMetadata().preprocess, std: [0.5, 0, 0.5] } });
  model('no-outputs', tinyMetadata(), tinyExplainerOnnx({ outputs: ['logits', 'attn', 'attn_rel_classic_last', 'input_rel_classic'] }));
  model('plain', tinyMetadata(), tinyExplainerOnnx({ plain: true }));
  model('blocks-3', tinyWith({ blocks: 3 }));
  model('one-block', tinyWith({ blocks: 1 }));
  model('heads-4', tinyWith({ heads: 4 }));
  model('classes-10', tinyWith({ num_classes: 10 }));
  model('grid-1x4', tinyWith({ grid: [1, 4] }));
  model('special-0', tinyWith({ special_tokens: 0 }));
  model('special-neg', tinyWith({ special_tokens: -1 }));
  model('size-8', tinyWith({ image_size: [8, 8], patch_size: 4 }));
  model('patch-3', tinyWith({ patch_size: 3 }));
  write('input.npy', formatNpy(filled([1, 3, PH, PW], 0)));
  write('input-8x8.npy', formatNpy(filled([1, 3, 8, 8], 0)));
  write('input-5x5.npy', formatNpy(filled([3, 5, 5], 0)));
  write('input-scalar.npy', formatNpy({ data: new Float32Array([0]), shape: [] }));
  const nanInput = filled([1, 3, PH, PW], 0);
  nanInput.data[5] = NaN;
  write('input-nan.npy', formatNpy(nanInput));
  const png = (w, h) => sharp({ create: { width: w, height: h, channels: 3, background: '#6a8caf' } }).png().toBuffer();
  write('photo.png', await png(8, 8));
  write('one.png', await png(1, 1));
  write('not-a-photo.png', 'this is text, not a PNG');
  write('empty.png', '');
  write('truncated.png', (await png(64, 64)).subarray(0, 60));
  write('too-big.png', await png(8000, 6000)); // 48 Mpx, over the decode limit
  mkdirSync(at('folder.png'));

  // output folders that cannot take the output
  write('a-file', 'not a folder');
  mkdirSync(at('maps-json-is-a-folder', 'maps.json'), { recursive: true });
  mkdirSync(at('overlay-is-a-folder', '0-tabby-raw_attention.png'), { recursive: true });
  mkdirSync(at('run-json-is-a-folder', 'run.json'), { recursive: true });
  write('tensors-is-a-file/tensors', 'not a folder');
  mkdirSync(at('attribution-json-is-a-folder', 'attribution.json'), { recursive: true });
  mkdirSync(at('tensor-is-a-folder', 'attr-block1.npy'), { recursive: true });
  mkdirSync(at('report-is-a-folder', 'pointing-game.md'), { recursive: true });
  for (const kind of ['perturbation', 'pointing-game', 'segmentation', 'prune-heads']) mkdirSync(at('summary-is-a-folder', `${kind}.json`), { recursive: true });
  symlinkSync(at('no-such-target'), at('dangling-link'));

  // eval: a labelled folder of photos for the tiny model
  write('eval/images/a.png', await png(8, 8));
  write('eval/images/b.png', await png(8, 8));
  write('eval/labels.csv', 'file,label\na.png,tabby\nb.png,0\n');
  write('eval/one/one.png', await png(1, 1)); // smaller than a patch: refused as the page refuses it
  write('eval/one-masks/one.png', await png(1, 1));
  write('eval/one-labels.csv', 'file,label\none.png,0\n');
  write('eval/labels-unknown.csv', 'file,label\na.png,zebra\nb.png,0\n');
  write('eval/labels-missing.csv', 'file,label\na.png,0\n');
  write('eval/labels-extra.csv', 'file,label\na.png,0\nb.png,0\nc.png,0\n');
  write('eval/labels-fields.csv', 'file,label\na.png,0,1\n');
  write('eval/labels-quote.csv', 'file,label\n"a.png,0\n');
  write('eval/labels-twice.csv', 'file,label\na.png,0\na.png,1\nb.png,0\n');
  write('eval/synsets-bad.txt', 'not a synset line\n');
  mkdirSync(at('eval/no-photos'));
  write('eval/no-photos/readme.txt', 'nothing here');
  mkdirSync(at('eval/runs/shard-1'), { recursive: true });
  write('eval/runs/not-a-run/records.jsonl', '');
  const runJson = (kind, data) => `${JSON.stringify({ kind, settings: {}, data, shard: null }, null, 2)}\n`;
  write('eval/runs/of-pointing-game/run.json', runJson('pointing-game', null));
  write('eval/runs/other-photos/run.json', runJson('perturbation', {
    images: '/data/other-photos', labelsSha256: null, masks: null, fileCount: 2, fileListSha256: '0'.repeat(64),
  }));
  // The split photo graph (external weights) when the DeiT-tiny export is built.
  const photoGraph = path.join(repo, 'build', 'models', 'deit_tiny_patch16_224.photo.onnx');
  if (existsSync(photoGraph)) {
    copyFileSync(photoGraph, at('models', 'split-photo.onnx'));
    copyFileSync(photoGraph.replace(/\.photo\.onnx$/, '.json'), at('models', 'split-photo.json'));
  }
  // export: hostile checkpoints, made by PyTorch (./checkpoints.py); the cases need them
  spawnSync(process.env.VITREL_PYTHON ?? '/usr/bin/python3', [path.join(repo, 'tests', 'hostile', 'checkpoints.py'), dir], { stdio: 'ignore' });
  return dir;
}
