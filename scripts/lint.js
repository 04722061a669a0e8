#!/usr/bin/env node
// `npm run lint`: checks every tracked source file against the project's style and lint
// rules; `npm run format` (this with --fix) rewrites what the tools can fix.
//   C++         clang-format (.clang-format)          src/ wasm/ tests/ bench/
//   JavaScript  ESLint (eslint.config.js)             everything but build outputs
//               tsc (tsconfig.json)                   the `// @ts-check` runtime modules' JSDoc types
//   Python      flake8 (.flake8); --fix: autopep8     models/ tests/
// Prints one line per tool and node:test-style counts (scripts/count-tests.js adds them
// up in `npm test`); exits 1 when a check fails.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fix = process.argv.includes('--fix');

function tracked(...patterns) {
  const r = spawnSync('git', ['ls-files', '--', ...patterns], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ls-files failed: ${r.stderr}`);
  return r.stdout.split('\n').filter(Boolean);
}

// Runs one tool; a missing tool is a failure that says how to install it.
function run(cmd, args, install) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error?.code === 'ENOENT') return { ok: false, output: `${cmd} is not installed (${install})` };
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

const cppFiles = tracked('src/*.cpp', 'src/*.h', 'wasm/*.cpp', 'wasm/*.h', 'tests/*.cpp', 'tests/*.h', 'bench/*.cpp', 'bench/*.h');
const pyFiles = tracked('*.py');
const apt = (pkg) => `apt-get install ${pkg}, or bash scripts/setup.sh`;

const checks = [
  ['C++ (clang-format)', () => run('clang-format', [...(fix ? ['-i'] : ['--dry-run', '--Werror']), ...cppFiles], apt('clang-format'))],
  ['JavaScript (ESLint)', () => run(process.execPath, [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), ...(fix ? ['--fix'] : []), '.'], 'npm ci')],
  ['JavaScript types (tsc)', () => run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], 'npm ci')],
  ['Python (flake8)', () => {
    if (fix) {
      const fixed = run('/usr/bin/python3', ['-m', 'autopep8', '--in-place', '--global-config', '.flake8', ...pyFiles], apt('python3-autopep8'));
      if (!fixed.ok) return fixed;
    }
    return run('/usr/bin/python3', ['-m', 'flake8', ...pyFiles], apt('python3-flake8'));
  }],
];

let failed = 0;
for (const [name, check] of checks) {
  const { ok, output } = check();
  if (!ok) failed++;
  console.log(`${ok ? 'ok' : 'FAILED'}  ${name}${fix ? ' (after fixing)' : ''}`);
  if (!ok && output) console.log(output.split('\n').map((l) => `    ${l}`).join('\n'));
}
if (failed && !fix) console.log('run `npm run format` to fix what the tools can, then fix the rest by hand');
console.log(`# pass ${checks.length - failed}\n# fail ${failed}`);
process.exit(failed ? 1 : 0);
