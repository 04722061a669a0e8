// `vit-relevance attribute` on the real DeiT-tiny and catdog (target 243, bull mastiff):
// the acceptance test. Attr of every block against an autograd reference of
// METHODS.md's formula (tests/models/attribution_reference.py, PyTorch on the same
// checkpoint and input), Pearson ≥ 0.999 per block at m = 20 (measured on a shared
// 2-core machine: the command 46 s, the reference 39 s); and the outputs and errors of
// the command.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseNpy } from '../../runtime/npy.js';
import { pearson, root, runCli, tempDir } from './maps-support.js';

const shared = process.env.VITREL_SHARED_DIR ?? path.join(root, '..', 'shared');
const model = path.join(root, 'build', 'models', 'deit_tiny_patch16_224.onnx');
const input = path.join(shared, 'reference', 'golden', 'catdog-input.npy');
const checkpoint = path.join(shared, 'models', 'deit_tiny_patch16_224.pth');
const ready = existsSync(model.replace(/\.onnx$/, '.attr0.onnx')) && existsSync(input) && existsSync(checkpoint);
const skip = ready ? false : 'needs build/models (npm run build) and ../shared';
const BLOCKS = Array.from({ length: 12 }, (_, b) => b);

const readNpy = (file) => parseNpy(new Uint8Array(readFileSync(file)), file);

test('Attr of DeiT-tiny on catdog equals the autograd reference (m = 20)', { skip, timeout: 900_000 }, () => {
  const out = tempDir('attribute-');
  const r = runCli(['attribute', input, '--model', model, '--class', '243', '--blocks', BLOCKS.join(','),
    '--steps', '20', '--save-tensors', '--threads', '2', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /block 11 \(12\/12\) done, .* ETA/);
  const ref = spawnSync('/usr/bin/python3', [path.join(root, 'tests', 'models', 'attribution_reference.py'),
    '--model', 'deit_tiny_patch16_224', '--checkpoint', checkpoint, '--input', input, '--class', '243',
    '--blocks', BLOCKS.join(','), '--steps', '20', '--out', out], { encoding: 'utf8', cwd: root });
  assert.equal(ref.status, 0, ref.stderr);
  const doc = JSON.parse(readFileSync(path.join(out, 'attribution.json'), 'utf8'));
  assert.equal(doc.target.id, 243);
  assert.deepEqual(doc.blocks.map((b) => b.block), BLOCKS);
  for (const b of BLOCKS) {
    const ours = readNpy(path.join(out, `attr-block${b}.npy`));
    const want = readNpy(path.join(out, `ref-block${b}.npy`));
    assert.deepEqual(ours.shape, [3, 197, 197]);
    const rho = pearson(ours.data, want.data);
    assert.ok(rho >= 0.999, `block ${b}: Pearson ${rho}`);
    const entry = doc.blocks.find((e) => e.block === b);
    assert.equal(entry.headImportance.length, 3);
    for (let k = 0; k < 3; k++) {
      const head = ours.data.subarray(k * 197 * 197, (k + 1) * 197 * 197);
      assert.equal(entry.headImportance[k], Math.max(...head));
    }
  }
  assert.ok(doc.tree.edges.length > 0, 'every block: the tree');
  assert.equal(doc.attattr.data.length, 14 * 14);
  for (const f of ['heads.png', 'tree.png', 'attattr.png']) assert.ok(existsSync(path.join(out, f)), f);
});

test('bad arguments fail before any graph runs, naming the value', { skip }, () => {
  const out = tempDir('attribute-bad-');
  const cases = [
    [['--blocks', '3,12'], /--blocks: "12" is not a block index 0\.\.11/],
    [['--blocks', 'x'], /--blocks: "x" is not a block index/],
    [['--steps', '0'], /--steps must be >= 1/],
    [['--class', 'no such class at all'], /--class "no such class at all" is not a class/],
    [['--target', '1000'], /--class 1000 is out of range/], // --target: the old name of --class
    [['--class', '1', '--target', '2'], /--class is given twice \(--target is its old name\)/],
  ];
  for (const [args, message] of cases) {
    const started = Date.now();
    const r = runCli(['attribute', input, '--model', model, ...args, '--out', out]);
    assert.notEqual(r.status, 0, args.join(' '));
    assert.match(r.stderr, message, args.join(' '));
    assert.ok(Date.now() - started < 20_000, `${args.join(' ')} must fail fast`);
  }
});

test("evaluations: 'all' means what the model's explainer graph feeds, attattr runs when named", async () => {
  const { evalMethods } = await import('../../cli/eval-options.js');
  const { loadCore } = await import('../../runtime/core.js');
  const core = await loadCore();
  // a 12-block graph with every optional output
  const current = { architecture: { blocks: 12 }, outputs: { input_rel_attnlrp: {}, input_rel_cp_lrp: {} } };
  const all = evalMethods({ methods: 'all' }, core, current);
  assert.deepEqual(all, core.explainerMethodIds);
  assert.ok(all.includes('attnlrp') && !all.includes('attattr'));
  // A graph exported before AttnLRP: 'all' is what it can feed.
  assert.deepEqual(evalMethods({ methods: 'all' }, core, { architecture: { blocks: 12 } }), all.filter((m) => m !== 'attnlrp' && m !== 'cp_lrp'));
  assert.deepEqual(evalMethods({ methods: 'attattr,transformer_attribution' }, core, current), ['attattr', 'transformer_attribution']);
  assert.throws(() => evalMethods({ methods: 'nope' }, core, current), /unknown method "nope"/);
});

test('maps --attr gives the attattr map: E_h[Attr⁺] + I rolled out', async () => {
  const { writeFileSync } = await import('node:fs');
  const { formatNpy } = await import('../../runtime/npy.js');
  const out = tempDir('attattr-maps-');
  // B = 2, h = 1, S = 2 (CLS + one patch): Ā1 = [[1, 5], [0, 1]], Ā0 = [[2, 0], [1, 1]] → row 0 [7, 5]
  const file = path.join(out, 'attr.npy');
  writeFileSync(file, formatNpy({ data: Float32Array.from([1, 0, 1, 0, 0, 5, -3, 0]), shape: [2, 1, 2, 2] }));
  const r = runCli(['maps', '--attr', file, '--grid', '1x1', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const doc = JSON.parse(readFileSync(path.join(out, 'maps.json'), 'utf8'));
  assert.deepEqual(Object.keys(doc.targets[0].maps), ['attattr']);
  assert.deepEqual(doc.targets[0].maps.attattr.data, [5]);
});
