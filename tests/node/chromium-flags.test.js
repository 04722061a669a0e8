// VITREL_CHROMIUM_FLAGS (tests/browser/harness.js): extra Chromium flags for experiments,
// space-separated or a JSON array for a flag whose value holds spaces.
import test from 'node:test';
import assert from 'node:assert/strict';
import { chromiumFlags } from '../browser/harness.js';

test('VITREL_CHROMIUM_FLAGS: none, space-separated, or a JSON array', () => {
  assert.deepEqual(chromiumFlags(''), []);
  assert.deepEqual(chromiumFlags('--a  --b=1'), ['--a', '--b=1']);
  assert.deepEqual(chromiumFlags(' ["--js-flags=--no-liftoff --no-wasm-lazy-compilation", "--c"]'),
    ['--js-flags=--no-liftoff --no-wasm-lazy-compilation', '--c']);
});

test('VITREL_CHROMIUM_FLAGS: a bad array names the variable', () => {
  assert.throws(() => chromiumFlags('["--a" "--b"]'), /^Error: VITREL_CHROMIUM_FLAGS starts with \[ but is not JSON/);
  assert.throws(() => chromiumFlags('["--a", 3]'), /^Error: VITREL_CHROMIUM_FLAGS: a JSON array of strings/);
});
