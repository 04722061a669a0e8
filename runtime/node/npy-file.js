// @ts-check
// .npy files read from disk for the CLI: runtime/npy.js plus file errors worded for users.
import { readFile, writeFile } from 'node:fs/promises';
import { formatNpy, parseNpy } from '../npy.js';
import { UserError } from '../errors.js';

export async function readNpyFile(file) {
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if (err.code === 'ENOENT') throw new UserError(`${file}: no such file`);
    if (err.code === 'EISDIR') throw new UserError(`${file}: is a directory, not a .npy file`);
    throw new UserError(`${file}: cannot read: ${err.message}`);
  }
  return parseNpy(bytes, file);
}

export async function writeNpyFile(file, tensor) {
  await writeFile(file, formatNpy(tensor));
}
