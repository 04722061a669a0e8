// How evaluations decode their photos and masks. DECODE goes into every evaluation's
// settings (./model-settings.js), so runs decoded differently are never mixed; an EXIF
// option of the decoder (PIL parity = orientation ignored, the evaluations' default)
// belongs here as one more field.
import path from 'node:path';
import { decodeImage } from '../image.js';
import { UnreadableError } from './run.js';

export const DECODE = { exif: 'apply' };

// → decodeImage's { rgba, width, height }; a file that cannot be read or decoded is an
// UnreadableError naming it by `name` (paths stay out of the records: they differ
// between machines, the names do not).
export async function decodePhoto(file, name = path.basename(file)) {
  try {
    return await decodeImage(file);
  } catch (err) {
    throw new UnreadableError(err.message.replaceAll(file, name));
  }
}
