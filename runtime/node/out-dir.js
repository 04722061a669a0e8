// @ts-check
// Node-only: makes sure an output folder can take the files a command will write, BEFORE
// the command does any work, so a bad --out costs a second, not a model run, and is
// reported as one line naming the folder (or the file in the way).
//
// prepareOutDir(dir, files) creates DIR (and its parents) when missing, proves it is
// writable by creating and removing a probe file, and checks that none of `files` (plain
// names inside DIR, e.g. 'maps.json') exists as anything but a regular file.
import { lstat, mkdir, open, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { UserError } from '../errors.js';

export class OutDirError extends UserError {
  constructor(message) {
    super(message);
    this.name = 'OutDirError';
  }
}

const REASONS = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  ENOENT: 'no files can be created there',
};
const reason = (err) => REASONS[err.code] ?? err.message;

// The folders of `dir` that do not exist yet (outermost first), after checking that the
// nearest existing part is a folder. Created one level at a time: Node's recursive mkdir
// never returns under /proc.
async function missingLevels(dir) {
  const missing = [];
  for (let p = path.resolve(dir); ; p = path.dirname(p)) {
    const info = await stat(p).catch((err) => (['ENOENT', 'ENOTDIR'].includes(err.code) ? null : Promise.reject(err)));
    if (info) {
      if (info.isDirectory()) return missing.reverse();
      throw new OutDirError(p === path.resolve(dir)
        ? `--out ${dir} is a file, not a folder; give a folder (it is created when missing)`
        : `--out ${dir} cannot be created: ${p} is a file, not a folder`);
    }
    if (await lstat(p).catch(() => null)) throw new OutDirError(`--out ${dir} cannot be created: ${p} is a symbolic link to nothing`);
    missing.push(p);
    if (path.dirname(p) === p) return missing.reverse();
  }
}

export async function prepareOutDir(dir, files = []) {
  try {
    for (const level of await missingLevels(dir)) await mkdir(level);
  } catch (err) {
    if (err instanceof OutDirError) throw err;
    throw new OutDirError(`--out ${dir} cannot be created: ${reason(err)}`);
  }
  const probe = path.join(dir, `.vit-relevance-write-test-${process.pid}`);
  try {
    await (await open(probe, 'w')).close();
    await rm(probe, { force: true });
  } catch (err) {
    throw new OutDirError(`--out ${dir} is not writable: ${reason(err)}`);
  }
  for (const name of files) {
    const info = await lstat(path.join(dir, name)).catch(() => null);
    if (info && !info.isFile()) {
      throw new OutDirError(`--out ${dir}: ${name} exists and is ${info.isDirectory() ? 'a folder' : 'not a regular file'}, so it cannot be written; remove it or choose another folder`);
    }
  }
  return dir;
}
