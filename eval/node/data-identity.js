// What an evaluation ran on, stored in run.json as `data` so that a resume or a merge
// over other photos is refused (./records.js checkSameRun) instead of mixing records of
// two folders that share file names:
//   images         the image folder, resolved (a second folder is refused even when
//                  it holds copies: run the shards of one evaluation on one path)
//   labelsSha256   the label file's content (null when the evaluation has none)
//   masks          the mask folder, resolved (segmentation; null otherwise)
//   fileCount      how many files (photos, and masks) are evaluated, before --shard and --limit
//   fileListSha256  sha256 of the sorted lines "name<TAB>size" of those files: names and
//                  sizes rather than contents, because every shard computes it before it
//                  starts, and hashing the contents would read the whole dataset once per
//                  shard (50,000 ImageNet photos are 6.4 GB), while a stat per file costs
//                  about a second; a replaced photo almost always changes size, and a
//                  resume on another folder changes the resolved path anyway.
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileSha256 } from '../../runtime/node/file-sha256.js';
import { compareKeys } from './json.js';
import { UserError } from '../../runtime/errors.js';

const STAT_BATCH = 256;

// files: [{ name (unique, e.g. "masks/x.png"), file (path) }].
async function listSha256(files) {
  const lines = [];
  for (let i = 0; i < files.length; i += STAT_BATCH) {
    const batch = files.slice(i, i + STAT_BATCH);
    const sizes = await Promise.all(batch.map(({ file }) => stat(file).then((s) => s.size, () => -1)));
    batch.forEach(({ name }, k) => lines.push(`${name}\t${sizes[k]}\n`));
  }
  return createHash('sha256').update(lines.sort(compareKeys).join('')).digest('hex');
}

async function labelsSha256(file) {
  try {
    return await fileSha256(file);
  } catch (err) {
    throw new UserError(`cannot read label file ${file}: ${err.message}`);
  }
}

// → the `data` object of run.json.
export async function describeData({ images, labels = null, masks = null, files }) {
  return {
    images: path.resolve(images),
    labelsSha256: labels ? await labelsSha256(labels) : null,
    masks: masks ? path.resolve(masks) : null,
    fileCount: files.length,
    fileListSha256: await listSha256(files),
  };
}
