// `npm run build` step: the package's TypeScript declarations, emitted by tsc from the
// JSDoc of the `// @ts-check` sources (tsconfig.types.json) into dist/types, which
// package.json's "exports" name. Laid out as the site is (web/x → x, runtime/y →
// runtime/y), the layout web/'s imports are written against. Always emitted afresh: tsc
// takes seconds, and stale declarations would be a lie.
import { spawn } from 'node:child_process';
import { appendFile, cp, rm } from 'node:fs/promises';
import path from 'node:path';

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

export async function buildTypes(paths) {
  const emitted = path.join(paths.build, 'types');
  const out = typesDir(paths);
  await rm(emitted, { recursive: true, force: true });
  await tsc(paths.root, ['-p', 'tsconfig.types.json', '--outDir', emitted]);
  await rm(out, { recursive: true, force: true });
  await cp(path.join(emitted, 'web'), out, { recursive: true });
  await cp(path.join(emitted, 'runtime'), path.join(out, 'runtime'), { recursive: true });
  await appendFile(path.join(out, 'vit-relevance-element.d.ts'), ELEMENT_EXTRAS);
}
