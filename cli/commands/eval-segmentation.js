// `vit-relevance eval segmentation`: the paper's segmentation test (pixel accuracy, mIoU,
// mAP of the predicted class's map against ground-truth masks; eval/segmentation*.js)
// over the photos of a folder that have a mask, resumable and shardable
// (cli/eval-command.js, eval/node/segmentation-job.js).
import { formatOptions } from '../args.js';
import { EVAL_OPTIONS } from '../eval-options.js';
import { runEvalCommand } from '../eval-command.js';
import { segmentationJob } from '../../eval/node/segmentation-job.js';

const { images, ...SHARED_OPTIONS } = EVAL_OPTIONS;
const OPTIONS = {
  images,
  masks: { type: 'string', value: 'DIR', required: true, help: 'ground-truth masks, <photo name without extension>.png; any non-zero value is foreground' },
  ...SHARED_OPTIONS,
  labels: { type: 'string', value: 'FILE', help: 'optional: synset_words.txt or a .csv of file,label; adds the top-1 accuracy' },
};

export const summary = 'pixel accuracy, mIoU and mAP of the predicted class\'s map against ground-truth masks';

export function usage() {
  return `usage: vit-relevance eval segmentation --images DIR --masks DIR --model GRAPH.onnx --out DIR
                                     [--labels FILE] [--methods all|ID,ID...] [--start-layer 1]
                                     [--limit N] [--shard i/n|auto] [--on-unreadable stop|skip]
                                     [--engine auto] [--threads N] [--quiet]

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

export const run = (argv) => runEvalCommand(argv, { name: 'segmentation', options: OPTIONS, usage, job: segmentationJob });
