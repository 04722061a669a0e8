// A random-weight ViT exported the way a user exports theirs: a bare timm state dict
// (tests/models/random_vit.py) → `vit-relevance export` → a model folder. The build's
// test of extra models and the scale bench (bench/scale.js) make theirs with it.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PYTHON = process.env.VITREL_PYTHON ?? '/usr/bin/python3';

function run(command, args, stdio) {
  const r = spawnSync(command, args, { cwd: root, encoding: 'utf8', stdio });
  if (r.status !== 0) throw new Error(`${path.basename(args[0])} exited with ${r.status}: ${r.stderr ?? ''}`);
}

// Writes `<dir>/<name>/` (16-pixel patches; `image` pixels a side) and deletes the
// checkpoint again. `stdio: 'inherit'` shows the exporter's output. → { folder, exportMs }
export function exportRandomModel(dir, { name, width, heads, depth, image = 224, classes = 1000 }, { stdio = 'pipe' } = {}) {
  const checkpoint = path.join(dir, `${name}.pth`);
  const folder = path.join(dir, name);
  run(PYTHON, [path.join(root, 'tests', 'models', 'random_vit.py'), checkpoint, '--width', String(width),
    '--heads', String(heads), '--depth', String(depth), '--image', String(image), '--classes', String(classes)], stdio);
  const started = performance.now();
  run(process.execPath, [path.join(root, 'cli', 'vit-relevance.js'), 'export', checkpoint, '--out', folder,
    '--name', name, '--heads', String(heads)], stdio);
  const exportMs = performance.now() - started;
  rmSync(checkpoint);
  return { folder, exportMs };
}
