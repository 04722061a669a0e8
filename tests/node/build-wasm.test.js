// The core's build (scripts/build/wasm.js): the site's glue goes through the Closure
// Compiler that npm installs, and is built without it, with a warning, where it cannot run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { closureCompiler } from '../../scripts/build/wasm.js';
import { root } from './maps-support.js';

test('the Closure Compiler npm installs is found and runs', () => {
  assert.equal(closureCompiler({ root }), path.join(root, 'node_modules', '.bin', 'google-closure-compiler'));
});

test('without a Closure Compiler that runs, the glue is built without it and the build says so', (t) => {
  const bare = mkdtempSync(path.join(os.tmpdir(), 'vitrel-no-closure-'));
  t.after(() => rmSync(bare, { recursive: true, force: true }));
  const warnings = [];
  t.mock.method(console, 'warn', (msg) => warnings.push(msg));
  assert.equal(closureCompiler({ root: bare }), null);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /without the Closure Compiler .* about 1 KB more gzipped/);
});
