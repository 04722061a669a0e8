// `vit-relevance maps` on bad inputs: a clear one-line message naming the problem (and
// the file), a non-zero exit, and no stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatNpy } from '../../runtime/npy.js';
import { runCli, tempDir } from './maps-support.js';

// Small valid inputs: B=2 blocks, h=2 heads, S = 1 + 2x2 tokens.
const [B, H, S] = [2, 2, 5];
function attention() {
  const data = new Float32Array(B * H * S * S).fill(1 / S);
  return { data, shape: [B, H, S, S] };
}
function ramp(shape) {
  const n = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: n }, (_, i) => ((i % 7) - 3) / 7), shape };
}

const dir = tempDir('vitrel-maps-errors-');
function npy(name, tensor) {
  const file = path.join(dir, name);
  writeFileSync(file, formatNpy(tensor));
  return file;
}
const attn = npy('attn.npy', attention());
const grad = npy('grad.npy', ramp([B, H, S, S]));

function expectFailure(args, pattern) {
  const r = runCli(['maps', ...args, '--out', path.join(dir, 'out')]);
  assert.notEqual(r.status, 0, `should fail: ${args.join(' ')}`);
  assert.match(r.stderr, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line: ${r.stderr}`);
  return r;
}

test('small valid inputs succeed (baseline for the failures below)', () => {
  const r = runCli(['maps', '--attn', attn, '--grad', grad, '--out', path.join(dir, 'ok')]);
  assert.equal(r.status, 0, r.stderr);
});

test('wrong shape names the tensor, both shapes and the file', () => {
  const bad = npy('grad-short.npy', ramp([B, H, S, S - 1]));
  const r = expectFailure(['--attn', attn, '--grad', bad], /attn_grad: expected shape \[2,2,5,5\].*got \[2,2,5,4\]/);
  assert.match(r.stderr, /grad-short\.npy/);
});

test('a NaN inside a tensor is reported with its position and file', () => {
  const t = attention();
  t.data[17] = NaN;
  const bad = npy('attn-nan.npy', t);
  const r = expectFailure(['--attn', bad], /attn: .*NaN.*17/);
  assert.match(r.stderr, /attn-nan\.npy/);
});

test('an infinity is rejected too', () => {
  const t = ramp([B, H, S, S]);
  t.data[3] = Infinity;
  expectFailure(['--attn', attn, '--grad', npy('grad-inf.npy', t)], /attn_grad: .*(inf|Inf)/);
});

test('a missing file is named', () => {
  expectFailure(['--attn', path.join(dir, 'nope.npy')], /nope\.npy: no such file/);
});

test('an unknown method lists the known ones', () => {
  const r = expectFailure(['--attn', attn, '--method', 'raw_attention,bogus'], /unknown method "bogus"/);
  assert.match(r.stderr, /transformer_attribution/);
});

test('a method whose input is missing says which flag provides it', () => {
  expectFailure(['--attn', attn, '--method', 'gradcam'], /gradcam: needs attn_grad.*--grad/);
});

test('a file that is not .npy is rejected by name', () => {
  const txt = path.join(dir, 'attn.txt');
  writeFileSync(txt, 'hello');
  expectFailure(['--attn', txt], /attn\.txt: expected a NumPy \.npy file/);
  const fake = path.join(dir, 'fake.npy');
  writeFileSync(fake, 'hello, not numpy');
  expectFailure(['--attn', fake], /fake\.npy: not a NumPy \.npy file/);
});

test('a grid that cannot be inferred asks for --grid', () => {
  const odd = npy('attn-odd.npy', { data: new Float32Array(1 * 1 * 7 * 7).fill(1 / 7), shape: [1, 1, 7, 7] });
  expectFailure(['--attn', odd], /cannot infer the patch grid.*--grid/);
  const r = runCli(['maps', '--attn', odd, '--grid', '2x3', '--out', path.join(dir, 'odd')]);
  assert.equal(r.status, 0, r.stderr);
});

test('usage mistakes: no inputs, no --out, unknown option, bad integer', () => {
  expectFailure([], /at least one input tensor/);
  const r = runCli(['maps', '--attn', attn]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /--out is required/);
  expectFailure(['--attn', attn, '--frobnicate', '1'], /Unknown option '--frobnicate'/);
  expectFailure(['--attn', attn, '--start-layer', 'two'], /--start-layer must be an integer/);
  expectFailure(['--attn', attn, '--start-layer', '5'], /start_layer 5 is out of range/);
});

test('unknown command and --help', () => {
  const r = runCli(['frobnicate']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown command "frobnicate"/);
  const help = runCli(['maps', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /usage: vit-relevance maps/);
  // The method list comes from the core's registry, with the flags that feed each method.
  assert.match(help.stdout, /gradcam +Grad-CAM on attention\n.*reads --attn --grad/);
  assert.match(help.stdout, /--rel-classic-last FILE\.npy +attn_rel_classic_last, /);
  const top = runCli(['--help']);
  assert.equal(top.status, 0);
  assert.match(top.stdout, /maps/);
});

test('--pool: an unknown id, or a pool the layout cannot have, is one line', () => {
  expectFailure(['--attn', attn, '--pool', 'gap'], /error: pool: unknown id "gap" \(valid: cls, cls\+dist, avg, avg\+prefix, cls\+avg\)$/m);
  expectFailure(['--attn', attn, '--pool', 'cls+dist'],
    /options: pool cls\+dist reads tokens 0 and 1 \(cls and dist\), but the layout has 1 special token/);
  expectFailure(['--attn', attn, '--special-tokens', '0', '--grid', '1x5'],
    /options: pool cls reads token 0 \(cls\), but the layout has 0 special tokens/);
  const r = runCli(['maps', '--attn', attn, '--special-tokens', '0', '--grid', '1x5', '--pool', 'avg', '--out', path.join(dir, 'avg')]);
  assert.equal(r.status, 0, r.stderr);
});
