// `vit-relevance eval segmentation`: the paper's segmentation test (pixel accuracy, mIoU,
// mAP of the predicted class's map against ground-truth masks; runtime/eval/segmentation*.js)
// over the photos of a folder that have a mask, resumable and shardable
// (runtime/node/eval/run.js).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseOptions, formatOptions, UsageError, CliError } from '../args.js';
import { EVAL_OPTIONS, evalShard, evalMethods, openEvalModel } from '../eval-options.js';
import { modelSettings } from '../../runtime/node/eval/model-settings.js';
import { loadCore } from '../../runtime/core.js';
import { metadataPathFor, readMetadata } from '../../runtime/node/open-explainer.js';
import { decodeImage } from '../../runtime/node/image.js';
import { runEvaluation } from '../../runtime/node/eval/run.js';
import { listPhotos, loadDataset } from '../../runtime/node/eval/dataset.js';
import { listSome } from '../../runtime/node/eval/errors.js';
import { kind } from '../../runtime/eval/segmentation.js';
import { binaryMask, maskInModelFrame } from '../../runtime/eval/segmentation-mask.js';
import { segmentPhoto } from '../../runtime/eval/segmentation-protocol.js';

const { images, ...SHARED_OPTIONS } = EVAL_OPTIONS;
const OPTIONS = {
  images,
  masks: { type: 'string', value: 'DIR', required: true, help: 'ground-truth masks, <photo name without extension>.png; any non-zero value is foreground' },
  ...SHARED_OPTIONS,
  labels: { type: 'string', value: 'FILE', help: 'optional: synset_words.txt or a .csv of file,label; adds the top-1 accuracy' },
  engine: { type: 'string', value: 'auto|node|web', default: 'auto', help: 'onnxruntime-node when installed (about 4× faster), else onnxruntime-web' },
};

export const summary = 'pixel accuracy, mIoU and mAP of the predicted class\'s map against ground-truth masks';

export function usage() {
  return `usage: vit-relevance eval segmentation --images DIR --masks DIR --model GRAPH.onnx --out DIR
                                     [--labels FILE] [--methods all|ID,ID...] [--start-layer 1]
                                     [--limit N] [--shard i/n] [--engine auto] [--threads N] [--quiet]

For every photo with a mask <stem>.png in --masks (photos without one are listed and
skipped): explain the predicted class, bring the mask into the model's input frame (the
mask may be a scaled copy of the photo; its region follows the model's preprocessing) and
score each method's map, min-max normalised and split at its mean, as the paper does.
Writes DIR/segmentation.json ({ n, pixelAccuracy, mIoU, mAP, iou } per method, in %), .md
and .csv. Rerun the same command to resume; run shards with --shard and join them with
\`vit-relevance eval merge\`.

options:
${formatOptions(OPTIONS)}`;
}


// Mask files by photo stem ("n01440764_tench" → DIR/n01440764_tench.png).
async function masksByStem(dir) {
  let names;
  try {
    names = await readdir(dir);
  } catch (err) {
    if (err.code === 'ENOENT') throw new CliError(`mask folder ${dir} does not exist`);
    if (err.code === 'ENOTDIR') throw new CliError(`${dir} is a file; --masks takes a folder of <stem>.png masks`);
    throw new CliError(`cannot read mask folder ${dir}: ${err.message}`);
  }
  const masks = new Map();
  for (const name of names.filter((n) => /\.png$/i.test(n)).sort()) {
    const stem = name.slice(0, -'.png'.length);
    if (masks.has(stem)) throw new CliError(`${dir} holds two masks for ${stem}: ${path.basename(masks.get(stem))} and ${name}`);
    masks.set(stem, path.join(dir, name));
  }
  return masks;
}

const stemOf = (name) => name.slice(0, name.length - path.extname(name).length);

// The photos (labelled, when --labels is given) that have a mask. → { items, skipped }
async function maskedItems(opts, metadata) {
  const photos = opts.labels
    ? (await loadDataset({ images: opts.images, labels: opts.labels, metadata, skipUnlabelled: Boolean(opts.skipUnlabelled) })).items
    : (await listPhotos(opts.images)).map((name) => ({ name, file: path.join(opts.images, name) }));
  const masks = await masksByStem(opts.masks);
  const items = [];
  const skipped = [];
  for (const photo of photos) {
    const mask = masks.get(stemOf(photo.name));
    if (mask) items.push({ ...photo, mask });
    else skipped.push(photo.name);
  }
  if (!items.length) throw new CliError(`no photo in ${opts.images} has a mask <stem>.png in ${opts.masks}`);
  return { items, skipped };
}

async function decode(file, what) {
  try {
    return await decodeImage(file);
  } catch (err) {
    throw new CliError(`${what}: ${err.message} (fix or remove it and rerun to resume)`);
  }
}

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval segmentation');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  const shard = evalShard(opts);
  const core = await loadCore();
  const methods = evalMethods(opts, core.methodIds);
  // The photos and masks first: a wrong folder is reported before the graph loads.
  const { items, skipped } = await readMetadata(metadataPathFor(opts.model), opts.model)
    .then((metadata) => maskedItems(opts, metadata))
    .catch((err) => {
      throw err instanceof UsageError || err instanceof CliError ? err : new CliError(err.message);
    });
  if (skipped.length) console.log(`skipped ${skipped.length} photo(s) without a mask in ${opts.masks}: ${listSome(skipped)}`);
  const explainer = await openEvalModel(opts);
  try {
    const { metadata } = explainer;
    const settings = {
      ...await modelSettings({ explainer, modelFile: opts.model, methods, startLayer: opts.startLayer }),
      preprocess: metadata.preprocess,
      labelled: Boolean(opts.labels),
    };
    const inputSize = metadata.architecture.image_size;
    const processItem = async (item) => {
      const photo = await decode(item.file, item.name);
      const maskImage = await decode(item.mask, path.basename(item.mask));
      const pre = core.preprocess(photo.rgba, photo.width, photo.height, metadata);
      let mask;
      try {
        mask = maskInModelFrame(core, binaryMask(maskImage.rgba, maskImage.width, maskImage.height),
          maskImage.width, maskImage.height, photo, pre.region, inputSize);
      } catch (err) {
        throw new CliError(`${path.basename(item.mask)}: ${err.message}`);
      }
      const scored = await segmentPhoto({ explainer, core, pre, mask, options: { methods, startLayer: opts.startLayer } });
      return item.label === undefined ? scored : { label: item.label, ...scored };
    };
    const started = performance.now();
    const result = await runEvaluation({
      kind, items, settings, outDir: opts.out, processItem, shard, limit: opts.limit, progress: { quiet: opts.quiet },
    });
    if (result.processed) {
      const seconds = (performance.now() - started) / 1000;
      console.log(`${result.processed} photo(s) in ${seconds.toFixed(1)} s (${(seconds / result.processed).toFixed(2)} s each)${result.resumed ? `, ${result.resumed} resumed` : ''}`);
    }
    const { summary: s } = result;
    if (!s) {
      console.log(`no photo in shard ${opts.shard} (${items.length} with masks in all); nothing written but ${opts.out}/run.json`);
      return 0;
    }
    console.log(`${s.n} photo(s) in ${opts.out}${s.top1 === null ? '' : `, top-1 ${(s.top1 * 100).toFixed(2)} %`}: pixel accuracy / mIoU / mAP (%)`);
    for (const m of methods) {
      console.log(`  ${m.padEnd(26)} ${[s.pixelAccuracy[m], s.mIoU[m], s.mAP[m]].map((v) => v.toFixed(2).padStart(6)).join(' / ')}`);
    }
    console.log(`wrote ${result.files.join(', ')}`);
    return 0;
  } finally {
    await explainer.release();
  }
}
