// Node-only: the segmentation evaluation (pixel accuracy, mIoU, mAP of the predicted
// class's map against ground-truth masks) as a job for cli/eval-command.js. Items are the
// photos of --images (labelled, when --labels is given) that have a mask <stem>.png in
// --masks; the step per photo decodes both, brings the mask into the model's frame
// (eval/segmentation-mask.js) and scores the maps (segmentation-protocol.js).
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { decodePhoto, preprocessPhoto } from './photo.js';
import { listPhotos, listSome, loadDataset } from './dataset.js';
import { describeData } from './data-identity.js';
import { modelSettings } from './model-settings.js';
import { UserError } from '../../runtime/errors.js';
import { kind } from '../segmentation.js';
import { binaryMask, maskInModelFrame } from '../segmentation-mask.js';
import { segmentPhoto } from '../segmentation-protocol.js';

// Mask files by photo stem ("n01440764_tench" → DIR/n01440764_tench.png).
async function masksByStem(dir) {
  let names;
  try {
    names = await readdir(dir);
  } catch (err) {
    if (err.code === 'ENOENT') throw new UserError(`mask folder ${dir} does not exist`);
    if (err.code === 'ENOTDIR') throw new UserError(`${dir} is a file; --masks takes a folder of <stem>.png masks`);
    throw new UserError(`cannot read mask folder ${dir}: ${err.message}`);
  }
  const masks = new Map();
  for (const name of names.filter((n) => /\.png$/i.test(n)).sort()) {
    const stem = name.slice(0, -'.png'.length);
    if (masks.has(stem)) throw new UserError(`${dir} holds two masks for ${stem}: ${path.basename(masks.get(stem))} and ${name}`);
    masks.set(stem, path.join(dir, name));
  }
  return masks;
}

const stemOf = (name) => name.slice(0, name.length - path.extname(name).length);

export const segmentationJob = {
  kind,
  unit: 'photo',

  async items({ opts, metadata }) {
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
    if (!items.length) throw new UserError(`no photo in ${opts.images} has a mask <stem>.png in ${opts.masks}`);
    const files = items.flatMap((item) => [item, { name: `masks/${path.basename(item.mask)}`, file: item.mask }]);
    const data = await describeData({ images: opts.images, labels: opts.labels, masks: opts.masks, files });
    const notes = skipped.length ? [`skipped ${skipped.length} photo(s) without a mask in ${opts.masks}: ${listSome(skipped)}`] : [];
    return { items, data, notes };
  },

  async prepare({ explainer, core, modelFile, methods, startLayer, opts }) {
    const { metadata } = explainer;
    const settings = {
      ...await modelSettings({ explainer, modelFile, methods, startLayer }),
      preprocess: metadata.preprocess,
      labelled: Boolean(opts.labels),
    };
    const inputSize = metadata.architecture.image_size;
    const processItem = async (item) => {
      const photo = await decodePhoto(item.file, item.name);
      const maskName = path.basename(item.mask);
      const maskImage = await decodePhoto(item.mask, `mask ${maskName}`);
      const pre = preprocessPhoto(core, photo, metadata, item.name);
      let mask;
      try {
        mask = maskInModelFrame(core, binaryMask(maskImage.rgba, maskImage.width, maskImage.height),
          maskImage.width, maskImage.height, photo, pre.region, inputSize);
      } catch (err) {
        throw new UserError(`${maskName}: ${err.message}`);
      }
      const scored = await segmentPhoto({ explainer, core, pre, mask, options: { methods, startLayer } });
      return item.label === undefined ? scored : { label: item.label, ...scored };
    };
    return { settings, processItem };
  },

  summaryLines(s, methods) {
    return [
      `${s.top1 === null ? '' : `top-1 ${(s.top1 * 100).toFixed(2)} %; `}pixel accuracy / mIoU / mAP (%)`,
      ...methods.map((m) => `  ${m.padEnd(26)} ${[s.pixelAccuracy[m], s.mIoU[m], s.mAP[m]].map((v) => v.toFixed(2).padStart(6)).join(' / ')}`),
    ];
  },
};
