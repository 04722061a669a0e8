// How evaluations decode and preprocess their photos and masks. DECODE goes into every evaluation's
// settings (./model-settings.js), so runs decoded differently are never mixed: PIL's
// reading, EXIF orientation not applied (../image.js DEFAULT_EXIF).
import path from 'node:path';
import { decodeImage, DEFAULT_EXIF } from '../../runtime/node/image.js';
import { UnreadableError } from './run.js';

export const DECODE = { exif: DEFAULT_EXIF };

// → decodeImage's { rgba, width, height }; a file that cannot be read or decoded is an
// UnreadableError naming it by `name` (paths stay out of the records: they differ
// between machines, the names do not).
export async function decodePhoto(file, name = path.basename(file)) {
  try {
    return await decodeImage(file, DECODE);
  } catch (err) {
    throw new UnreadableError(err.message.replaceAll(file, name));
  }
}

// A photo smaller than one of the model's patches on a side carries no layout to explain:
// refused as the page refuses it (web/lib/image-input.js), unreadable for the evaluation.
export function checkPhotoSide(photo, metadata, name) {
  const patch = metadata.architecture.patch_size;
  if (photo.width < patch || photo.height < patch) {
    throw new UnreadableError(`${name} is only ${photo.width}×${photo.height} px. The model reads ${patch}×${patch} patches: use a photo at least ${patch} px on each side.`);
  }
  return photo;
}

// The model's input of a decoded photo (core.preprocess). A photo the core refuses to
// preprocess (a 1×5000 strip resizes past the core's limits) is as unusable as one that
// does not decode; the core marks such inputs with err.name 'InputError' (runtime/core.js).
export function preprocessPhoto(core, photo, metadata, name) {
  checkPhotoSide(photo, metadata, name);
  try {
    return core.preprocess(photo.rgba, photo.width, photo.height, metadata);
  } catch (err) {
    if (err?.name !== 'InputError') throw err;
    throw new UnreadableError(`${name}: ${err.message}`);
  }
}
