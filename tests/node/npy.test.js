// runtime/npy.js: round trips, the three header versions, and clear rejections that name
// the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { parseNpy, formatNpy } from '../../runtime/npy.js';
import { UserError } from '../../runtime/errors.js';
import { golden } from './maps-support.js';

// Builds a .npy by hand: version, header dict text, raw data bytes.
function handMade(major, dict, dataBytes = new Uint8Array(0)) {
  const lenBytes = major === 1 ? 2 : 4;
  const prefix = 8 + lenBytes;
  let text = dict;
  text += ' '.repeat((64 - ((prefix + text.length + 1) % 64)) % 64) + '\n';
  const enc = new TextEncoder().encode(text);
  const out = new Uint8Array(prefix + enc.length + dataBytes.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (lenBytes === 2) view.setUint16(8, enc.length, true);
  else view.setUint32(8, enc.length, true);
  out.set(enc, prefix);
  out.set(dataBytes, prefix + enc.length);
  return out;
}
const f32bytes = (values) => new Uint8Array(Float32Array.from(values).buffer);

test('round trip keeps shape and every float32 bit', () => {
  for (const shape of [[7], [2, 3], [2, 3, 4, 5], [1, 1, 1], []]) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = Float32Array.from({ length: n }, (_, i) => Math.fround(Math.sin(i) * 1e3 ** (i % 3)));
    const bytes = formatNpy({ data, shape });
    assert.equal((bytes.length - data.byteLength) % 64, 0, 'header padded to 64 bytes');
    const back = parseNpy(bytes, 'x.npy');
    assert.deepEqual(back.shape, shape);
    assert.deepEqual(back.data, data);
  }
});

test('special values survive (NaN, infinities, -0, subnormals)', () => {
  const data = Float32Array.from([NaN, Infinity, -Infinity, -0, 1e-45, 3.4e38]);
  const back = parseNpy(formatNpy({ data, shape: [6] }));
  assert.ok(Number.isNaN(back.data[0]));
  assert.deepEqual(Array.from(back.data.slice(1)), Array.from(data.slice(1)));
  assert.ok(Object.is(back.data[3], -0));
});

test('reads a file written by NumPy (the golden attention)', { skip: existsSync(golden('catdog-attn.npy')) ? false : 'no golden data' }, () => {
  const t = parseNpy(readFileSync(golden('catdog-attn.npy')), 'catdog-attn.npy');
  assert.deepEqual(t.shape, [12, 3, 197, 197]);
  // Post-softmax attention: every row sums to 1.
  let sum = 0;
  for (let j = 0; j < 197; j++) sum += t.data[j];
  assert.ok(Math.abs(sum - 1) < 1e-4, `row sum ${sum}`);
});

test('header versions 2.0 and 3.0 are read', () => {
  const dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  for (const major of [1, 2, 3]) {
    const t = parseNpy(handMade(major, dict, f32bytes([1, 2, 3, 4])), `v${major}.npy`);
    assert.deepEqual(t.shape, [2, 2]);
    assert.deepEqual(Array.from(t.data), [1, 2, 3, 4]);
  }
  // Version 3.0 headers are UTF-8 (e.g. field names in structured dtypes); key order may vary.
  const t = parseNpy(handMade(3, "{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}", f32bytes([5, 6, 7])));
  assert.deepEqual(t.shape, [3]);
});

test('a header too long for version 1.0 is written as version 2.0', () => {
  const shape = Array(30000).fill(1); // "1, " x 30000 > 65535 header bytes
  const bytes = formatNpy({ data: new Float32Array([42]), shape });
  assert.equal(bytes[6], 2);
  const back = parseNpy(bytes);
  assert.equal(back.shape.length, 30000);
  assert.equal(back.data[0], 42);
});

test('other dtypes are rejected with the file name and the dtype', () => {
  for (const descr of ['<f8', '<i4', '>f4', '|u1', '<f2']) {
    const bytes = handMade(1, `{'descr': '${descr}', 'fortran_order': False, 'shape': (1,), }`, new Uint8Array(8));
    assert.throws(() => parseNpy(bytes, 'weights.npy'), (err) => {
      assert.ok(err instanceof UserError);
      assert.match(err.message, /^weights\.npy: /);
      assert.ok(err.message.includes(descr), err.message);
      assert.match(err.message, /float32/);
      return true;
    });
  }
  const structured = handMade(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", new Uint8Array(4));
  assert.throws(() => parseNpy(structured, 's.npy'), /s\.npy: .*structured/);
});

test('Fortran order is rejected', () => {
  const bytes = handMade(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", f32bytes([1, 2, 3, 4]));
  assert.throws(() => parseNpy(bytes, 'f.npy'), /f\.npy: Fortran-order arrays are not supported/);
  // A 1-D array is the same in both orders.
  const oneD = handMade(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", f32bytes([1, 2]));
  assert.deepEqual(Array.from(parseNpy(oneD).data), [1, 2]);
});

test('not .npy, unknown version, truncated or oversized data are rejected', () => {
  assert.throws(() => parseNpy(new TextEncoder().encode('PK\u0003\u0004 zip archive'), 'a.npz'), /a\.npz: not a NumPy \.npy file/);
  assert.throws(() => parseNpy(new Uint8Array(3), 'tiny.npy'), /tiny\.npy: not a NumPy/);
  const v9 = handMade(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f32bytes([1]));
  v9[6] = 9;
  assert.throws(() => parseNpy(v9, 'v9.npy'), /v9\.npy: unsupported \.npy format version 9/);
  const short = handMade(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", f32bytes([1, 2]));
  assert.throws(() => parseNpy(short, 'short.npy'), /short\.npy: truncated data/);
  const long = handMade(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f32bytes([1, 2]));
  assert.throws(() => parseNpy(long, 'long.npy'), /long\.npy: 4 unexpected bytes/);
  const garbled = handMade(1, "{'descr': '<f4', 'shape': (1,), }", f32bytes([1]));
  assert.throws(() => parseNpy(garbled, 'g.npy'), /g\.npy: malformed \.npy header/);
  const cut = handMade(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }").subarray(0, 30);
  assert.throws(() => parseNpy(cut, 'cut.npy'), /cut\.npy: truncated \.npy header/);
});

test('data at an unaligned offset is read correctly', () => {
  const bytes = formatNpy({ data: Float32Array.from([1.5, -2.5]), shape: [2] });
  const padded = new Uint8Array(bytes.length + 1);
  padded.set(bytes, 1);
  assert.deepEqual(Array.from(parseNpy(padded.subarray(1)).data), [1.5, -2.5]);
});
