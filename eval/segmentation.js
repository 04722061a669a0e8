// @ts-check
// The segmentation evaluation as an evaluation kind (eval/node/run.js). A record
// (./segmentation-protocol.js plus the CLI) holds the predicted class, the label when one
// was given, and per method the counts of core.segmentationCounts. The summary follows
// imagenet_seg_eval.py, in % like the paper's table:
//   pixelAccuracy = Σ correct / Σ labeled
//   iou[c]        = Σ intersection[c] / Σ union[c]   (c = background, foreground; 0 if no union)
//   mIoU          = mean of iou over the two classes
//   mAP           = mean over the photos of each photo's average precision
// with sums over the dataset in key order, so a merge of shards writes the same bytes.
// Environment-neutral.
import { markdownTable, csvTable, skippedLines } from './report-table.js';

const ratio = (a, b) => (b > 0 ? a / b : 0);

export function methodScores(records, method) {
  let correct = 0;
  let labeled = 0;
  let apSum = 0;
  const intersection = [0, 0];
  const union = [0, 0];
  for (const r of records) {
    const c = r.counts[method];
    correct += c.correct;
    labeled += c.labeled;
    apSum += c.averagePrecision;
    for (const k of [0, 1]) {
      intersection[k] += c.intersection[k];
      union[k] += c.union[k];
    }
  }
  const iou = [0, 1].map((k) => 100 * ratio(intersection[k], union[k]));
  return {
    pixelAccuracy: 100 * ratio(correct, labeled),
    iou,
    mIoU: (iou[0] + iou[1]) / 2,
    mAP: 100 * ratio(apSum, records.length),
  };
}

export const kind = {
  name: 'segmentation',

  itemKey: (item) => item.name,

  summarize(records, settings) {
    const out = { pixelAccuracy: {}, mIoU: {}, mAP: {}, iou: {} };
    for (const method of settings.methods) {
      const s = methodScores(records, method);
      for (const key of Object.keys(out)) out[key][method] = s[key];
    }
    const labelled = records.filter((r) => r.label !== undefined);
    const top1 = labelled.length ? labelled.filter((r) => r.predicted === r.label).length / labelled.length : null;
    return {
      n: records.length, model: settings.model, methods: settings.methods, startLayer: settings.startLayer,
      labelled: labelled.length, top1, ...out,
    };
  },

  reports(summary) {
    const rows = summary.methods.map((m) => [m, summary.pixelAccuracy[m], summary.mIoU[m], summary.mAP[m]]);
    const md = [
      `# Segmentation: ${summary.model}, ${summary.n} photos`,
      '',
      'The map of the predicted class, at the input size, against each photo\'s mask in the',
      'model\'s frame: min-max normalised and split at its mean for pixel accuracy and IoU',
      '(mIoU = mean of background and foreground IoU, accumulated over the dataset); mAP = mean',
      `of the per-photo average precision of the soft map. All in %. Rollouts start at block ${summary.startLayer}.`,
      ...(summary.top1 === null ? [] : [`Top-1 accuracy on the ${summary.labelled} labelled photos: ${(summary.top1 * 100).toFixed(2)} %.`]),
      '',
      ...skippedLines(summary, 'photo'),
      markdownTable(['method', 'pixel accuracy', 'mIoU', 'mAP'], rows, { precision: 2 }),
      '',
    ].join('\n');
    const csv = csvTable(['method', 'pixel_accuracy', 'miou', 'map', 'iou_background', 'iou_foreground'],
      summary.methods.map((m) => [m, summary.pixelAccuracy[m], summary.mIoU[m], summary.mAP[m], ...summary.iou[m]]), { precision: 4 });
    return [{ file: 'segmentation.md', text: md }, { file: 'segmentation.csv', text: csv }];
  },
};
