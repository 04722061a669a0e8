// The WebAssembly build (through `vit-relevance maps`) returns the same numbers as the
// native build of the same sources (tests/native/write_maps) for the same .npy inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { goldenArgs, haveGolden, maxRelativeDiff, readMaps, root, runCli, tempDir } from './maps-support.js';
import { goldenMethodIds } from './explain-support.js';
import { TENSOR_FLAGS } from '../../cli/commands/maps.js';

const nativeBuild = path.join(root, 'build', 'native');
const writeMaps = path.join(nativeBuild, 'tests', 'native', 'write_maps');

// Builds write_maps when `npm test`'s C++ step has not (e.g. running this file alone).
function ensureWriteMaps() {
  const steps = [
    ['cmake', ['-S', root, '-B', nativeBuild, '-DCMAKE_BUILD_TYPE=Release']],
    ['cmake', ['--build', nativeBuild, '--target', 'write_maps', '-j', '2']],
  ];
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  }
  assert.ok(existsSync(writeMaps), `${writeMaps} was not built`);
}

// write_maps takes tensors by id (--attn_grad FILE), the CLI by its flags (--grad FILE).
function nativeMaps(cliArgs) {
  const args = cliArgs.map((a) => (a.startsWith('--') && TENSOR_FLAGS[a.slice(2)] ? `--${TENSOR_FLAGS[a.slice(2)]}` : a));
  const r = spawnSync(writeMaps, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const skip = haveGolden ? false : 'golden data not found (set VITREL_SHARED_DIR)';
const TOLERANCE = 1e-6;

for (const [label, extra] of [['start layer 0', []], ['start layer 1', ['--start-layer', '1']]]) {
  test(`WebAssembly and native maps agree to ${TOLERANCE} (golden tensors, target 243, ${label})`, { skip }, async () => {
    ensureWriteMaps();
    const args = [...goldenArgs('243'), ...extra];
    const native = nativeMaps(args);
    const out = tempDir();
    const r = runCli(['maps', ...args, '--out', out]);
    assert.equal(r.status, 0, r.stderr);
    const wasm = (await readMaps(out)).targets[0].maps;
    assert.deepEqual(Object.keys(wasm), Object.keys(native));
    assert.deepEqual(Object.keys(wasm), await goldenMethodIds(), 'every method the golden tensors feed');
    for (const [id, n] of Object.entries(native)) {
      assert.deepEqual(wasm[id].shape, n.shape, `${id} shape`);
      const d = maxRelativeDiff(wasm[id].data, n.data);
      assert.ok(d <= TOLERANCE, `${id}: WebAssembly vs native max relative difference ${d}`);
    }
  });
}
