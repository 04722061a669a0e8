// `npm run build` step: the package's TypeScript declarations, emitted by tsc from the
// JSDoc of the `// @ts-check` sources (tsconfig.types.json) into dist/types, which
// package.json's "exports" name. Laid out as the site is (web/x → x, runtime/y →
// runtime/y), the layout web/'s imports are written against. Skipped when they are newer
// than every script of web/ and runtime/, the tsconfig files and this file.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, cp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const typesDir = (paths) => path.join(paths.root, 'dist', 'types');

// What JSDoc cannot declare, added to the element's declarations: its typed events (an
// interface merged into the class) and its tag in TypeScript's DOM map (a global).
const ELEMENT_EXTRAS = `
export interface VitRelevanceElement {
  addEventListener<K extends keyof VitRelevanceEventMap>(type: K, listener: (this: VitRelevanceElement, ev: VitRelevanceEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions): void;
}
declare global {
  interface HTMLElementTagNameMap { 'vit-relevance': VitRelevanceElement }
}
`;

function tsc(root, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ...args],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    child.on('error', (err) => reject(new Error(`tsc: ${err.message} (npm ci)`)));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc ${args.join(' ')} exited with ${code}:\n${output.trim()}`))));
  });
}

async function upToDate(paths, out) {
  const marker = path.join(out, 'vit-relevance.d.ts'); // written with the others
  if (!existsSync(marker)) return false;
  const sources = [fileURLToPath(import.meta.url), ...['tsconfig.json', 'tsconfig.types.json'].map((f) => path.join(paths.root, f))];
  for (const dir of ['web', 'runtime']) {
    const entries = await readdir(path.join(paths.root, dir), { withFileTypes: true, recursive: true });
    sources.push(...entries.filter((e) => e.isFile() && e.name.endsWith('.js')).map((e) => path.join(e.parentPath ?? e.path, e.name)));
  }
  const built = (await stat(marker)).mtimeMs;
  for (const f of sources) if ((await stat(f)).mtimeMs > built) return false;
  return true;
}

export async function buildTypes(paths) {
  const emitted = path.join(paths.build, 'types');
  const out = typesDir(paths);
  if (await upToDate(paths, out)) {
    console.log('build: type declarations are up to date');
    return;
  }
  await rm(emitted, { recursive: true, force: true });
  // Removed first: web/'s imports name the runtime by package name, which "exports" resolves
  // to these declarations, so stale ones would be read in place of the changed sources.
  await rm(out, { recursive: true, force: true });
  await tsc(paths.root, ['-p', 'tsconfig.types.json', '--outDir', emitted]);
  await cp(path.join(emitted, 'web'), out, { recursive: true });
  await cp(path.join(emitted, 'runtime'), path.join(out, 'runtime'), { recursive: true });
  await appendFile(path.join(out, 'vit-relevance-element.d.ts'), ELEMENT_EXTRAS);
}
