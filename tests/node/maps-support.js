// Shared by the core/maps tests: where things are, running the CLI, comparing maps.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const shared = path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared');
export const goldenDir = path.join(shared, 'reference', 'golden');
export const haveGolden = existsSync(path.join(goldenDir, 'catdog.json'));
export const cli = path.join(root, 'cli', 'vit-relevance.js');

export const golden = (name) => path.join(goldenDir, name);

// The CLI flags for the golden tensors of one target class.
export function goldenArgs(target) {
  return [
    '--attn', golden('catdog-attn.npy'),
    '--grad', golden(`catdog-${target}-attn-grad.npy`),
    '--rel', golden(`catdog-${target}-attn-rel.npy`),
    '--rel-classic-last', golden(`catdog-${target}-attn-rel-classic-last.npy`),
    '--input-rel-classic', golden(`catdog-${target}-input-rel-classic.npy`),
  ];
}

export function tempDir(prefix = 'vitrel-test-') {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Runs `vit-relevance <args>`; returns { status, stdout, stderr }.
export function runCli(args) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export async function readMaps(dir) {
  return JSON.parse(await readFile(path.join(dir, 'maps.json'), 'utf8'));
}

export function pearson(a, b) {
  const n = a.length;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) { ma += a[i]; mb += b[i]; }
  ma /= n; mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] - ma;
    const y = b[i] - mb;
    sab += x * y; saa += x * x; sbb += y * y;
  }
  return sab / Math.sqrt(saa * sbb);
}

// Largest |a - b| relative to the largest |b| (0 when both are all zeros).
export function maxRelativeDiff(a, b) {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < a.length; i++) {
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
    scale = Math.max(scale, Math.abs(b[i]));
  }
  return scale === 0 ? diff : diff / scale;
}
