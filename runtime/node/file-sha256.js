// @ts-check
// Node-only: a file's sha256 in hex. Evaluations keep the graph's hash in their settings,
// so resuming or merging runs of different exports is refused.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';

export async function fileSha256(file) {
  return createHash('sha256').update(await readFile(file)).digest('hex');
}
