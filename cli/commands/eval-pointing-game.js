// `vit-relevance eval pointing-game`: the grid pointing game (Böhle et al., CVPR'22) over
// 2×2 mosaics of labelled photos of different classes (eval/mosaic.js, built from
// --seed), resumable and shardable (cli/eval-command.js,
// eval/node/pointing-game-job.js): how much of each class's relevance lands in
// the tile of that class.
import { formatOptions } from '../args.js';
import { EVAL_OPTIONS } from '../eval-options.js';
import { runEvalCommand } from '../eval-command.js';
import { pointingGameJob } from '../../eval/node/pointing-game-job.js';

const OPTIONS = {
  ...EVAL_OPTIONS,
  limit: { type: 'int', min: 1, help: 'evaluate only the first N mosaics (of the shard)' },
  shard: { ...EVAL_OPTIONS.shard, help: EVAL_OPTIONS.shard.help.replace('shard i of n', 'shard i of n of the mosaics') },
  seed: { type: 'int', min: 0, max: 0xffffffff, default: 0, help: 'seed of the shuffle that groups the photos into mosaics' },
};

export const summary = 'grid pointing game: share of each class\'s relevance inside its tile of a 2×2 mosaic';

export function usage() {
  return `usage: vit-relevance eval pointing-game --images DIR --labels FILE --model GRAPH.onnx --out DIR
                                      [--seed 0] [--methods all|ID,ID...] [--start-layer 1]
                                      [--limit N] [--shard i/n|auto] [--on-unreadable stop|skip]
                                      [--engine auto] [--threads N] [--quiet]

Shuffles the labelled photos with --seed and groups them into 2×2 mosaics of four different
classes (photos left over are unused). Each photo is preprocessed as the model would at half
the input size and placed top-left, top-right, bottom-left, bottom-right; one explainer run
explains the four classes. Per method and tile: the share of the map's positive relevance
inside the correct tile, and whether its hottest pixel lies there. Writes
DIR/pointing-game.json ({ n, tiles, seed, score, hitRate }), .md and .csv. Rerun the same
command to resume; run shards with --shard (same --seed) and join them with
\`vit-relevance eval merge\`.

options:
${formatOptions(OPTIONS)}`;
}

export const run = (argv) => runEvalCommand(argv, { name: 'pointing-game', options: OPTIONS, usage, job: pointingGameJob });
