// `vit-relevance export` stopped mid-export by SIGTERM or SIGINT: it stops the whole
// exporter (the Python process and everything it started), removes the scratch folder the
// export had begun and the --out folder it had made, and says so in one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(REPO, 'cli', 'vit-relevance.js');
const PYTHON = process.env.VITREL_PYTHON ?? '/usr/bin/python3';
const hasTorch = spawnSync(PYTHON, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;

// A small random 1-block ViT, saved by PyTorch (tests/models/layout_writers.py).
function smallCheckpoint(dir) {
  const file = path.join(dir, 'small.pth');
  execFileSync(PYTHON, ['-c', `
import sys, torch
sys.path[:0] = [${JSON.stringify(path.join(REPO, 'tests', 'models'))}, ${JSON.stringify(REPO)}]
from layout_writers import random_checkpoint
from models.exporter.config import ViTConfig
cfg = ViTConfig(name="s", depth=1, heads=4, embed_dim=32, patch_size=8, image_size=(16, 16), num_classes=3)
torch.save(random_checkpoint(cfg), sys.argv[1])`, file]);
  return file;
}

// Polls a condition of the file system or the process table (a state, not a time).
async function until(what, condition, limitMs = 300_000) {
  for (const started = Date.now(); !condition();) {
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

// The processes whose command line names `marker` (the exporter and its children).
function processesNaming(marker) {
  const ps = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return ps.split('\n').filter((l) => l.includes(marker) && !l.includes('ps -eo')).map((l) => Number(l.trim().split(/\s+/)[0]));
}
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

for (const signal of ['SIGTERM', 'SIGINT']) {
  test(`export stopped by ${signal}: the exporter stops and nothing stays behind`, { skip: !hasTorch && 'needs PyTorch' }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'export-signal-'));
    const source = smallCheckpoint(dir);
    const out = path.join(dir, 'out');
    const child = spawn(process.execPath, [CLI, 'export', source, '--out', out, '--heads', '4'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdout.resume();
    const exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
    // the export is under way once its scratch folder exists in --out
    await until('the scratch folder', () => existsSync(out) && readdirSync(out).some((f) => f.startsWith('.small.')));
    const exporter = processesNaming(out);
    assert.ok(exporter.length >= 1, 'the exporter runs');
    child.kill(signal);
    const code = await exited;
    assert.equal(code, signal === 'SIGTERM' ? 143 : 130, stderr);
    assert.equal(stderr.trim(), `vit-relevance export: error: stopped by ${signal}: ${out} was left as it was`);
    await until('the exporter to end', () => exporter.every((pid) => !alive(pid)), 30_000);
    assert.deepEqual(processesNaming(out), []);
    assert.ok(!existsSync(out), `${out} is left: ${existsSync(out) ? readdirSync(out).join(', ') : ''}`);
  });
}
