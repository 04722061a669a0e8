// `npm run build` step: the WebAssembly core. Configures with emcmake into
// build/wasm-cmake, builds, and copies vit_relevance_core.mjs/.wasm into paths.wasm, and the
// glue for browsers alone (the site's: wasm/CMakeLists.txt) into paths.wasm/web.
// Skipped when both outputs are newer than every source (src/, wasm/, CMake files).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

const OUTPUTS = ['vit_relevance_core.mjs', 'vit_relevance_core.wasm', 'web/vit_relevance_core.mjs'];
const SOURCE_DIRS = ['src', 'wasm'];
const SOURCE_FILES = ['CMakeLists.txt'];

async function newestMtime(files) {
  let newest = 0;
  for (const f of files) newest = Math.max(newest, (await stat(f)).mtimeMs);
  return newest;
}

async function listFiles(dir) {
  if (!existsSync(dir)) return [];
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath ?? e.path, e.name));
}

async function upToDate(paths) {
  const outputs = OUTPUTS.map((f) => path.join(paths.wasm, f));
  if (!outputs.every(existsSync)) return false;
  const sources = [...SOURCE_FILES.map((f) => path.join(paths.root, f))];
  for (const d of SOURCE_DIRS) sources.push(...await listFiles(path.join(paths.root, d)));
  const oldestOutput = Math.min(...await Promise.all(outputs.map(async (f) => (await stat(f)).mtimeMs)));
  return (await newestMtime(sources)) < oldestOutput;
}

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    child.on('error', (err) => reject(new Error(`${cmd}: ${err.message}` +
      (err.code === 'ENOENT' ? ' (install the Debian package emscripten: bash scripts/setup.sh)' : ''))));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`))));
  });
}

// The Closure Compiler for the site's core glue (wasm/CMakeLists.txt): the npm package's, at
// the version Emscripten 3.1.6 was made with (Debian's is from 2013). It runs as a native
// program on x86-64 Linux, macOS and Windows, elsewhere on Java; where it cannot run, the
// glue is built without it (1.0 KB more gzipped in an embedding page) → its path, or null.
export function closureCompiler(paths) {
  const closure = path.join(paths.root, 'node_modules', '.bin', 'google-closure-compiler');
  if (spawnSync(closure, ['--version']).status === 0) return closure;
  console.warn(`build: the site's core glue is built without the Closure Compiler (${closure} does not run: npm ci installs it; `
    + 'without its native build, it needs Java): about 1 KB more gzipped in every page that embeds the element');
  return null;
}

export async function buildWasm(paths) {
  if (await upToDate(paths)) {
    console.log('build: WebAssembly core is up to date');
    return;
  }
  // emcc's JS optimizer needs acorn from Debian's node-acorn, which Node does not look for.
  const env = {
    ...process.env,
    NODE_PATH: [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(path.delimiter),
  };
  const closure = closureCompiler(paths);
  if (closure) env.EM_CLOSURE_COMPILER = closure;
  const buildDir = path.join(paths.build, 'wasm-cmake');
  const configure = ['cmake', '-S', paths.root, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', `-DVITREL_CLOSURE=${closure ? 'ON' : 'OFF'}`];
  await run('emcmake', configure, env);
  await run('cmake', ['--build', buildDir, '--target', 'vit_relevance_core_wasm', 'vit_relevance_core_web', '-j', '2'], env);
  // The site ships one .wasm for both glues: each must have been linked to the same bytes.
  const [wasm, webWasm] = await Promise.all(['', 'web'].map((d) => readFile(path.join(buildDir, 'wasm', d, 'vit_relevance_core.wasm'))));
  if (!wasm.equals(webWasm)) throw new Error('build: the site\'s core glue was linked to another .wasm than the CLI\'s (wasm/CMakeLists.txt)');
  await mkdir(path.join(paths.wasm, 'web'), { recursive: true });
  for (const f of OUTPUTS) await copyFile(path.join(buildDir, 'wasm', f), path.join(paths.wasm, f));
}
