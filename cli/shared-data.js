// Where the text evaluations find their data by default: ../shared beside the repository
// (VITREL_SHARED_DIR overrides it, as for the benchmarks); --data overrides both.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const sharedPath = (...parts) => path.resolve(root, process.env.VITREL_SHARED_DIR ?? '../shared', ...parts);
