// Runs one command-line case of ./cases.js as a child process: its arguments with <tmp> and
// <repo> filled in, its stderr with them put back, so messages compare on any machine.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(repo, 'cli', 'vit-relevance.js');

export const fill = (text, tmp) => text.replaceAll('<tmp>', tmp).replaceAll('<repo>', repo);
export const unfill = (text, tmp) => text.replaceAll(tmp, '<tmp>').replaceAll(repo, '<repo>');

// → { status, stderr (trimmed, <tmp>/<repo> restored), stdout }
// The job runners' variables (--shard auto) are left out: cases must not depend on where
// the suite runs.
const RUNNER_VARIABLES = /^(SLURM_|JOB_COMPLETION_INDEX$|PARALLEL_)/;
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !RUNNER_VARIABLES.test(k)));

export function runCliCase(c, tmp) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...c.args.map((a) => fill(a, tmp))], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr: unfill(stderr, tmp).trim() }));
  });
}

// Runs `fn` over `items`, `limit` at a time (the machine's cores are shared).
export async function eachLimited(items, limit, fn) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}
