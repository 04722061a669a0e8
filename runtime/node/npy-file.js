// .npy files on disk for the CLI: runtime/npy.js plus file errors worded for users.
import { readFile, writeFile } from 'node:fs/promises';
import { parseNpy, formatNpy, NpyError } from '../npy.js';

export async function readNpyFile(file) {
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (err) {
    if (err.code === 'ENOENT') throw new NpyError(`${file}: no such file`);
    if (err.code === 'EISDIR') throw new NpyError(`${file}: is a directory, not a .npy file`);
    throw new NpyError(`${file}: cannot read: ${err.message}`);
  }
  return parseNpy(bytes, file);
}

export async function writeNpyFile(file, tensor) {
  await writeFile(file, formatNpy(tensor));
}
