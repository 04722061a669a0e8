// Property tests (fast-check) of the two parsers every user file goes through before the
// core sees it: runtime/npy.js and runtime/metadata.js. Whatever the bytes or the JSON,
// the result is consistent or the error is the project's own (UserError; a plain Error
// naming the metadata source), never a TypeError/RangeError from inside the parser.
import test from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseNpy, formatNpy } from '../../runtime/npy.js';
import { UserError } from '../../runtime/errors.js';
import { tokenLayout, validateMetadata, checkSessionContract, CONTRACT_INPUTS, CONTRACT_OUTPUTS } from '../../runtime/metadata.js';
import { tinyMetadata } from './explainer-fixture.js';

const RUNS = 3000;
const seed = Number(process.env.FUZZ_SEED ?? 20261122); // fixed: a failure reproduces
const params = (numRuns = RUNS) => ({ numRuns, seed });

const count = (shape) => shape.reduce((a, b) => a * b, 1);

// Parses or throws UserError naming the file; a parsed array is self-consistent.
function parsesConsistently(bytes) {
  let out;
  try {
    out = parseNpy(bytes, 'fuzz.npy');
  } catch (e) {
    assert.ok(e instanceof UserError, `not a UserError: ${e?.name}: ${e?.message}`);
    assert.ok(e.message.startsWith('fuzz.npy: '), e.message);
    return null;
  }
  assert.ok(out.data instanceof Float32Array);
  assert.ok(out.shape.every((d) => Number.isSafeInteger(d) && d >= 0), `shape ${out.shape}`);
  assert.equal(out.data.length, count(out.shape));
  return out;
}

const shapeArb = fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 });
const arrayArb = shapeArb.chain((shape) => fc.record({
  shape: fc.constant(shape),
  data: fc.float32Array({ minLength: count(shape), maxLength: count(shape) }),
}));

// The header texts a hostile or broken writer might produce.
const headerArb = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.tuple(
    fc.constantFrom("'<f4'", "'<f8'", "'>f4'", "'|u1'", "[('a', '<f4')]", "'<f4", '"<f4"', ''),
    fc.constantFrom('False', 'True', 'Maybe', ''),
    fc.constantFrom('(2, 3)', '()', '(5,)', '(0, 99999999999999999999)', '(-1,)', '(1e3,)', '(2',
      '(4294967296, 4294967296)', '(3L, 2)', "('a',)"),
  ).map(([d, f, s]) => `{'descr': ${d}, 'fortran_order': ${f}, 'shape': ${s}, }`),
);

function handMade(major, text, data) {
  const enc = new TextEncoder().encode(text);
  const prefix = major === 1 ? 10 : 12;
  const out = new Uint8Array(prefix + enc.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0]);
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, enc.length & 0xffff, true);
  else view.setUint32(8, enc.length, true);
  out.set(enc, prefix);
  out.set(data, prefix + enc.length);
  return out;
}

test('npy: arbitrary bytes parse consistently or throw UserError', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
    parsesConsistently(bytes);
  }), params());
});

test('npy: fuzzed headers and data lengths parse consistently or throw UserError', () => {
  fc.assert(fc.property(fc.constantFrom(1, 2, 3, 4), headerArb, fc.uint8Array({ maxLength: 64 }),
    (major, text, data) => {
      const out = parsesConsistently(handMade(major, text, data));
      if (out) assert.equal(out.data.length * 4, data.length);
    }), params());
});

test('npy: a dimension past 2^53 is rejected, even beside a zero one (found by the test above)', () => {
  // Was parsed to shape [0, 100000000000000000000]: an empty array with an inexact dim.
  const bytes = handMade(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 99999999999999999999), }", new Uint8Array(0));
  assert.throws(() => parseNpy(bytes, 'big.npy'), /^UserError: big\.npy: shape dimension 99999999999999999999 is too large$/);
});

test('npy: valid files with bytes flipped, cut or appended parse consistently or throw UserError', () => {
  const mutated = fc.tuple(arrayArb, fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
    fc.option(fc.nat()), fc.uint8Array({ maxLength: 8 }));
  fc.assert(fc.property(mutated, ([array, flips, cut, extra]) => {
    let bytes = formatNpy(array);
    for (const [at, value] of flips) bytes[at % bytes.length] = value;
    if (cut !== null) bytes = bytes.subarray(0, cut % (bytes.length + 1));
    const joined = new Uint8Array(bytes.length + extra.length);
    joined.set(bytes);
    joined.set(extra, bytes.length);
    parsesConsistently(joined);
  }), params());
});

test('npy: formatNpy then parseNpy keeps the shape and every float32 bit', () => {
  fc.assert(fc.property(arrayArb, ({ shape, data }) => {
    const back = parsesConsistently(formatNpy({ data, shape }));
    assert.deepEqual(back.shape, shape);
    assert.deepEqual(new Uint8Array(back.data.buffer), new Uint8Array(data.buffer));
  }), params(1000));
});

test('npy: formatNpy rejects data that does not fill the shape', () => {
  fc.assert(fc.property(shapeArb, fc.float32Array({ maxLength: 30 }), (shape, data) => {
    fc.pre(data.length !== count(shape));
    assert.throws(() => formatNpy({ data, shape }), UserError);
  }), params(500));
});

// ---- metadata

// Throws the plain Error validateMetadata promises, naming `source`, or returns the input.
function validatesOrNames(metadata) {
  try {
    assert.equal(validateMetadata(metadata, 'fuzz.json'), metadata);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    for (const internal of [TypeError, RangeError, SyntaxError, ReferenceError]) {
      assert.ok(!(e instanceof internal), `internal error: ${e.name}: ${e.message}`);
    }
    assert.ok(e instanceof Error && e.message.startsWith('fuzz.json '), e.message);
    return false;
  }
  return true;
}

// Replaces the value at a random path of the valid metadata by an arbitrary JSON value
// (or deletes it), as a stale exporter or a hand edit would.
function pathsOf(value, prefix = []) {
  if (value === null || typeof value !== 'object') return [prefix];
  return [prefix, ...Object.keys(value).flatMap((k) => pathsOf(value[k], [...prefix, k]))];
}
const valid = tinyMetadata();
const paths = pathsOf(valid).filter((p) => p.length > 0);

test('metadata: any JSON value validates or throws an Error naming the file', () => {
  fc.assert(fc.property(fc.jsonValue(), (v) => { validatesOrNames(v); }), params());
});

test('metadata: a valid file with one field replaced or removed validates consistently or is named', () => {
  const edit = fc.tuple(fc.constantFrom(...paths), fc.option(fc.oneof(fc.jsonValue(), fc.constantFrom(
    0, -1, 1.5, 2 ** 53, NaN, Infinity, '', [], {}, [0, 0], [7, 28], [1e308, 1e308]))));
  fc.assert(fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
    const m = tinyMetadata();
    for (const [path, value] of edits) {
      let parent = m;
      for (const k of path.slice(0, -1)) parent = parent?.[k];
      if (parent === null || typeof parent !== 'object') continue;
      if (value === null) delete parent[path.at(-1)];
      else parent[path.at(-1)] = value;
    }
    if (!validatesOrNames(m)) return;
    // What it accepted is what the runtime relies on.
    const a = m.architecture;
    for (const f of ['blocks', 'heads', 'patch_size', 'tokens', 'num_classes']) assert.ok(Number.isInteger(a[f]) && a[f] > 0, f);
    assert.equal(a.grid[0] * a.grid[1] + tokenLayout(m).specialTokens, a.tokens);
    assert.equal(m.labels.length, a.num_classes);
    assert.ok(m.preprocess.std.every((s) => s > 0) && m.preprocess.mean.every(Number.isFinite));
  }), params());
});

test('metadata: session contract passes exactly when every contract name is present', () => {
  const names = fc.array(fc.oneof(fc.constantFrom(...CONTRACT_INPUTS, ...CONTRACT_OUTPUTS), fc.string({ maxLength: 8 })), { maxLength: 12 });
  fc.assert(fc.property(names, names, (inputNames, outputNames) => {
    const complete = CONTRACT_INPUTS.every((n) => inputNames.includes(n)) && CONTRACT_OUTPUTS.every((n) => outputNames.includes(n));
    let threw = null;
    try {
      checkSessionContract({ inputNames, outputNames }, 'fuzz.onnx');
    } catch (e) {
      threw = e;
    }
    assert.equal(threw === null, complete);
    if (threw) assert.ok(threw.constructor === Error && threw.message.startsWith('fuzz.onnx lacks '), threw.message);
  }), params(1000));
});
