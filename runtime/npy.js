// @ts-check
// NumPy .npy files (format versions 1.0, 2.0 and 3.0) holding float32 little-endian
// arrays in C order — the only kind the explainer tensors come in. Anything else is
// rejected with a UserError naming the file, so a user knows which argument to fix.
// Environment-neutral (bytes in, bytes out); runtime/node/npy-file.js reads and writes files.

import { UserError } from './errors.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"
const FLOAT32_DESCR = new Set(['<f4']);

// The header is a Python dict literal, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (12, 3, 197, 197), }
function parseHeader(text, name) {
  const field = (key) => new RegExp(`['"]${key}['"]\\s*:\\s*`).exec(text);
  const descrAt = field('descr');
  const fortranAt = field('fortran_order');
  const shapeAt = field('shape');
  if (!descrAt || !fortranAt || !shapeAt) throw new UserError(`${name}: malformed .npy header: ${text.trim()}`);
  const rest = (m) => text.slice(m.index + m[0].length);
  const descr = /^(['"])(.*?)\1/.exec(rest(descrAt));
  if (!descr) {
    throw new UserError(`${name}: unsupported dtype (structured array); only float32 little-endian (<f4) is accepted`);
  }
  const fortran = /^(True|False)/.exec(rest(fortranAt));
  const shape = /^\(([^)]*)\)/.exec(rest(shapeAt));
  if (!fortran || !shape) throw new UserError(`${name}: malformed .npy header: ${text.trim()}`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (!dims.every((d) => /^\d+L?$/.test(d))) throw new UserError(`${name}: malformed shape in .npy header: (${shape[1]})`);
  return { descr: descr[2], fortranOrder: fortran[1] === 'True', shape: dims.map((d) => parseInt(d, 10)) };
}

// bytes: Uint8Array (or Buffer) of a whole .npy file; name: used in messages.
// Returns { data: Float32Array, shape: number[] }. The data is a copy, aligned.
export function parseNpy(bytes, name = 'array.npy') {
  const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (u8.length < 10 || !MAGIC.every((b, i) => u8[i] === b)) {
    throw new UserError(`${name}: not a NumPy .npy file (no \\x93NUMPY magic)`);
  }
  const major = u8[6];
  const view = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  let headerLen;
  let headerStart;
  if (major === 1) {
    headerLen = view.getUint16(8, true);
    headerStart = 10;
  } else if (major === 2 || major === 3) {
    if (u8.length < 12) throw new UserError(`${name}: truncated .npy header`);
    headerLen = view.getUint32(8, true);
    headerStart = 12;
  } else {
    throw new UserError(`${name}: unsupported .npy format version ${major}.${u8[7]}`);
  }
  const dataStart = headerStart + headerLen;
  if (dataStart > u8.length) throw new UserError(`${name}: truncated .npy header`);
  const encoding = major === 3 ? 'utf-8' : 'latin1';
  const header = parseHeader(new TextDecoder(encoding).decode(u8.subarray(headerStart, dataStart)), name);

  if (!FLOAT32_DESCR.has(header.descr)) {
    throw new UserError(`${name}: dtype '${header.descr}' is not supported; only float32 little-endian ('<f4') is accepted (convert with arr.astype('<f4'))`);
  }
  if (header.fortranOrder && header.shape.length > 1) {
    throw new UserError(`${name}: Fortran-order arrays are not supported; save a C-order array (np.ascontiguousarray)`);
  }
  const count = header.shape.reduce((a, b) => a * b, 1);
  const bytesNeeded = count * 4;
  const available = u8.length - dataStart;
  if (available < bytesNeeded) {
    throw new UserError(`${name}: truncated data: shape (${header.shape.join(', ')}) needs ${bytesNeeded} bytes, file has ${available}`);
  }
  if (available > bytesNeeded) {
    throw new UserError(`${name}: ${available - bytesNeeded} unexpected bytes after the data of shape (${header.shape.join(', ')})`);
  }
  // Copy into a fresh buffer: the file's data offset need not be 4-byte aligned.
  const data = new Float32Array(count);
  new Uint8Array(data.buffer).set(u8.subarray(dataStart, dataStart + bytesNeeded));
  return { data, shape: header.shape };
}

// Serialises { data, shape } as a version 1.0 .npy (2.0 when the header needs it).
export function formatNpy({ data, shape }) {
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count) throw new UserError(`formatNpy: data has ${data.length} values, shape needs ${count}`);
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let dict = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // Total header (magic + version + length field + dict + padding + \n) is a multiple of 64.
  const build = (prefixLen) => {
    const pad = (64 - ((prefixLen + dict.length + 1) % 64)) % 64;
    return dict + ' '.repeat(pad) + '\n';
  };
  let major = 1;
  let text = build(10);
  if (text.length > 0xffff) {
    major = 2;
    text = build(12);
  }
  const prefixLen = major === 1 ? 10 : 12;
  const out = new Uint8Array(prefixLen + text.length + count * 4);
  out.set(MAGIC, 0);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, text.length, true);
  else view.setUint32(8, text.length, true);
  for (let i = 0; i < text.length; i++) out[prefixLen + i] = text.charCodeAt(i);
  const f32 = data instanceof Float32Array ? data : Float32Array.from(data);
  out.set(new Uint8Array(f32.buffer, f32.byteOffset, count * 4), prefixLen + text.length);
  return out;
}
