// A PNG that states a huge size in a small file: black RGB rows, deflated as they are made
// (a 20000×20000 one is 1.2 MB on disk and 1.6 GB decoded), for the page's pixel limit.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createDeflate, crc32 } from 'node:zlib';

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** @returns {Promise<Buffer>} */
export async function hugePng(width, height) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bits per sample
  header[9] = 2; // RGB
  const row = Buffer.alloc(1 + 3 * width); // filter byte 0, then black pixels
  const rows = Readable.from((function* () { for (let y = 0; y < height; y++) yield row; })());
  const data = await buffer(rows.pipe(createDeflate({ level: 9 })));
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
}
