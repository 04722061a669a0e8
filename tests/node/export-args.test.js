// `vit-relevance export`: what it refuses before the Python exporter starts (no PyTorch
// needed), each as one line with its exit code. The export itself is tested in
// tests/models/test_export_source.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../cli/vit-relevance.js', import.meta.url));

function cli(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }));
  });
}

test('export refuses bad arguments in one line, before the exporter runs', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'export-args-'));
  const source = path.join(dir, 'ckpt');
  mkdirSync(source);
  writeFileSync(path.join(dir, 'a-file'), 'x');
  const cases = [
    [['--out', path.join(dir, 'o')], 2, 'give the checkpoint to export (a file or a folder)'],
    [[source], 2, '--out is required'],
    [[path.join(dir, 'missing'), '--out', path.join(dir, 'o')], 2, `checkpoint ${path.join(dir, 'missing')} not found`],
    [[source, '--out', path.join(dir, 'a-file')], 2, `--out ${path.join(dir, 'a-file')} is a file, not a folder`],
    [[source, '--out', path.join(dir, 'no', 'such', 'o')], 2, 'its parent folder'],
    [[source, '--out', path.join(dir, 'o'), '--act', 'relu'], 2, '--act must be one of gelu, gelu_tanh, quickgelu, got "relu"'],
    [[source, '--out', path.join(dir, 'o'), '--mean', '0.5,0.5'], 2, '--mean takes 3 numbers separated by commas, got "0.5,0.5"'],
    [[source, '--out', path.join(dir, 'o'), '--mean', '0.5,0.5,0.5'], 2, '--mean and --std go together'],
    [[source, '--out', path.join(dir, 'o'), '--eps', 'small'], 2, '--eps takes a number, got "small"'],
    [[source, '--out', path.join(dir, 'o'), '--labels', path.join(dir, 'none.txt')], 2, 'not found'],
    [[source, 'other', '--out', path.join(dir, 'o')], 2, 'one SOURCE expected, got'],
  ];
  for (const [args, code, message] of cases) {
    const r = await cli('export', ...args);
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^vit-relevance export: error: /);
    assert.ok(lines[0].includes(message), `${args.join(' ')}: ${lines[0]}`);
  }
});

test('export --help lists the options the issue names', async () => {
  const r = await cli('export', '--help');
  assert.equal(r.code, 0);
  for (const option of ['--out', '--name', '--labels', '--heads', '--eps', '--act', '--mean', '--std', '--crop-pct', '--interpolation']) {
    assert.ok(r.stdout.includes(option), option);
  }
});
