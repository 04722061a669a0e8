// The npm package: `npm pack` gives a tarball that installs in an empty folder with no
// network (npm ci --offline, from the npm cache the project's own install filled), and
// there `npx vit-relevance explain` and `import … from 'vit-relevance/node'` explain a photo,
// and `vit-relevance/runtime/<module>.js` names the runtime's modules.
// The empty project's lockfile pins the same dependency versions as ours (npm needs a
// lockfile to install offline: without one it asks the registry for version lists).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { root, tempDir } from './maps-support.js';
import { deitModel, images, skipDeit } from './explain-support.js';

const env = { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip', npm_config_audit: 'false', npm_config_fund: 'false' };
function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

function writeLockedProject(dir, tarball) {
  const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
  const spec = `file:${tarball}`;
  const packages = {
    '': { name: 'consumer', dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version, resolved: spec, license: pkg.license, bin: pkg.bin,
      dependencies: pkg.dependencies, optionalDependencies: pkg.optionalDependencies,
    },
  };
  // Everything our install needs at run time (not the dev tools).
  for (const [key, entry] of Object.entries(lock.packages)) if (key && !entry.dev) packages[key] = entry;
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { [pkg.name]: spec } }));
  writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ name: 'consumer', lockfileVersion: 3, requires: true, packages }));
}

test('the packed tarball installs offline in an empty folder; npx vit-relevance and vit-relevance/node explain catdog', { skip: skipDeit, timeout: 600_000 }, () => {
  const work = tempDir('vitrel-pack-');
  const out = run('npm', ['pack', '--pack-destination', work], root).trim().split('\n').pop();
  const tarball = path.join(work, out);
  const app = path.join(work, 'app');
  mkdirSync(app);
  writeLockedProject(app, tarball);
  run('npm', ['ci', '--offline'], app);

  const photo = path.join(images, 'catdog.png');
  const stdout = run('npx', ['--offline', 'vit-relevance', 'explain', photo, '--model', deitModel, '--method', 'raw_attention', '--out', 'maps'], app);
  assert.match(stdout, /243\s+[\d.]+%\s+bull mastiff/);
  const maps = JSON.parse(readFileSync(path.join(app, 'maps', 'maps.json'), 'utf8'));
  assert.equal(maps.targets[0].id, 243);

  writeFileSync(path.join(app, 'use.js'), `import { loadExplainer } from 'vit-relevance/node';
const explainer = await loadExplainer({ model: process.argv[2] });
const result = await explainer.explain(process.argv[3], { targets: ['tiger cat'] });
console.log(JSON.stringify({ top1: result.top5[0].id, target: result.targets[0].id, shape: result.targets[0].maps.transformer_attribution.shape }));
await explainer.close();
`);
  const used = JSON.parse(run('node', ['use.js', path.dirname(deitModel), photo], app).trim().split('\n').pop());
  assert.deepEqual(used, { top1: 243, target: 282, shape: [14, 14] });

  // The browser entries are the site's bundles, with the files a docs author copies.
  const site = path.join(app, 'node_modules', 'vit-relevance', 'dist', 'site');
  for (const f of ['vit-relevance.js', 'vit-relevance-element.js', 'worker.js', 'build/wasm/vit_relevance_core.mjs', 'build/wasm/vit_relevance_core.wasm', 'ort/ort.wasm.min.mjs',
    `ort/v${JSON.parse(readFileSync(path.join(root, 'node_modules', 'onnxruntime-web', 'package.json'), 'utf8')).version}/ort-wasm-simd-threaded.wasm`]) {
    assert.ok(existsSync(path.join(site, f)), `the package lacks dist/site/${f}`);
  }
  // Each entry's TypeScript declarations, emitted by prepack's build.
  const installed = path.join(app, 'node_modules', 'vit-relevance');
  for (const [entry, { types }] of Object.entries(JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')).exports)) {
    // A pattern entry ("./runtime/*.js"): its declarations for one module, the shared types.
    const file = types?.replace('*', 'explain-types');
    if (file) assert.ok(existsSync(path.join(installed, file)), `the package lacks ${entry}'s declarations ${file}`);
  }
  const exported = run('node', ['--input-type=module', '-e', "console.log(Object.keys(await import('vit-relevance')).sort().join(' '))"], app).trim();
  assert.equal(exported, 'decodePhoto loadExplainer loadRenderer patchMap render runtimeStats');
  // The runtime's modules, under the names the page's own modules import them by.
  const top = run('node', ['--input-type=module', '-e', "const { topK } = await import('vit-relevance/runtime/topk.js'); console.log(topK([0, 2, 1], 1)[0].id)"], app).trim();
  assert.equal(top, '1');
});
