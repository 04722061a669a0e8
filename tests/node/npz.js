// Test support: reads a NumPy .npz (a zip of .npy files, stored or deflated, as np.savez and
// np.savez_compressed write them) → Map(name without .npy → { data, shape }). The zip's
// central directory gives each entry's sizes and offset; runtime/npy.js reads each float32
// .npy, and int64 ones (token ids) are read here as numbers.
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { parseNpy } from '../../runtime/npy.js';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;
const LOCAL_ENTRY = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

// A 1-D little-endian int64 .npy (version 1) → { data: number[], shape }; others: parseNpy.
function readArray(bytes, name) {
  const headerLength = bytes[8] | (bytes[9] << 8);
  const header = new TextDecoder('latin1').decode(bytes.subarray(10, 10 + headerLength));
  if (!/'descr': '<i8'/.test(header)) return parseNpy(bytes, name);
  const values = new BigInt64Array(bytes.slice(10 + headerLength).buffer);
  return { data: Array.from(values, Number), shape: [values.length] };
}

export function readNpz(file) {
  const zip = readFileSync(file);
  // The end-of-central-directory record: the last 22 bytes, unless a comment follows it.
  let end = zip.length - 22;
  while (end >= 0 && zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end--;
  if (end < 0) throw new Error(`${file} is not a zip archive`);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const arrays = new Map();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_ENTRY) throw new Error(`${file}: entry ${i} of the central directory is damaged`);
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (zip.readUInt32LE(local) !== LOCAL_ENTRY) throw new Error(`${file}: ${name} has no local header`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressed);
    if (method !== STORED && method !== DEFLATED) throw new Error(`${file}: ${name} uses zip method ${method}`);
    const bytes = method === STORED ? raw : inflateRawSync(raw);
    arrays.set(name.replace(/\.npy$/, ''), readArray(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), name));
  }
  return arrays;
}
