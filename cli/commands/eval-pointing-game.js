// `vit-relevance eval pointing-game`: the grid pointing game (Böhle et al., CVPR'22) over
// 2×2 mosaics of labelled photos of different classes (runtime/eval/mosaic.js, built from
// --seed), resumable and shardable (runtime/node/eval/run.js): how much of each class's
// relevance lands in the tile of that class.
import { createHash } from 'node:crypto';
import { parseOptions, formatOptions, CliError } from '../args.js';
import { EVAL_OPTIONS, evalItemsOrFail, evalMethods, openEvalModel } from '../eval-options.js';
import { modelSettings } from '../../runtime/node/eval/model-settings.js';
import { loadCore } from '../../runtime/core.js';
import { decodeImage } from '../../runtime/node/image.js';
import { runEvaluation } from '../../runtime/node/eval/run.js';
import { kind } from '../../runtime/eval/pointing-game.js';
import { buildMosaics } from '../../runtime/eval/mosaic.js';
import { tilePreprocess } from '../../runtime/eval/pointing-game-tiles.js';
import { scoreMosaic } from '../../runtime/eval/pointing-game-protocol.js';

const GRID = 2;

const OPTIONS = {
  ...EVAL_OPTIONS,
  limit: { type: 'int', min: 1, help: 'evaluate only the first N mosaics (of the shard)' },
  shard: { type: 'string', value: 'i/n', help: 'evaluate shard i of n of the mosaics (1-based); combine the folders with `eval merge`' },
  seed: { type: 'int', min: 0, max: 0xffffffff, default: 0, help: 'seed of the shuffle that groups the photos into mosaics' },
  engine: { type: 'string', value: 'auto|node|web', default: 'auto', help: 'onnxruntime-node when installed (about 4× faster), else onnxruntime-web' },
};

export const summary = 'grid pointing game: share of each class\'s relevance inside its tile of a 2×2 mosaic';

export function usage() {
  return `usage: vit-relevance eval pointing-game --images DIR --labels FILE --model GRAPH.onnx --out DIR
                                      [--seed 0] [--methods all|ID,ID...] [--start-layer 1]
                                      [--limit N] [--shard i/n] [--engine auto] [--threads N] [--quiet]

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


// Which photos make up every mosaic: a resumed run or a shard on another photo list (the
// keys would name other mosaics) is refused as "other settings".
function mosaicsSha256(mosaics) {
  return createHash('sha256').update(JSON.stringify(mosaics.map((m) => m.photos.map((p) => [p.name, p.label])))).digest('hex');
}

async function decodeTile(photo) {
  try {
    return await decodeImage(photo.file);
  } catch (err) {
    throw new CliError(`${photo.name}: ${err.message} (remove it from the folder; the mosaics change, so use a new --out)`);
  }
}

function mosaicsOf(items, seed) {
  const mosaics = buildMosaics(items, { seed, tiles: GRID * GRID });
  if (!mosaics.length) {
    const classes = new Set(items.map((i) => i.label)).size;
    throw new CliError(`a mosaic needs photos of ${GRID * GRID} different classes; the folder has ${items.length} labelled photo(s) of ${classes} class(es)`);
  }
  return mosaics;
}

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'eval pointing-game');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  const explainer = await openEvalModel(opts);
  try {
    const core = await loadCore();
    const methods = evalMethods(opts, core.methodIds);
    const { metadata } = explainer;
    const { items, shard, limit } = await evalItemsOrFail(opts, metadata);
    // The whole list first: every shard must number the same mosaics the same way.
    const mosaics = mosaicsOf(items, opts.seed);
    const unused = items.length - mosaics.length * GRID * GRID;
    console.log(`${mosaics.length} mosaic(s) of ${GRID}×${GRID} from ${items.length} labelled photo(s), seed ${opts.seed}${unused ? ` (${unused} photo(s) unused)` : ''}`);
    const settings = {
      ...await modelSettings({ explainer, modelFile: opts.model, methods, startLayer: opts.startLayer }),
      seed: opts.seed,
      grid: GRID,
      mosaicsSha256: mosaicsSha256(mosaics),
      preprocess: metadata.preprocess,
      tilePreprocess: tilePreprocess(metadata.preprocess, GRID),
    };
    const processItem = async (mosaic) => {
      const photos = [];
      for (const photo of mosaic.photos) photos.push(await decodeTile(photo));
      const classes = mosaic.photos.map((p) => p.label);
      const scored = await scoreMosaic({ explainer, core, photos, classes, options: { methods, startLayer: opts.startLayer, grid: GRID } });
      return { photos: mosaic.photos.map((p) => p.name), classes, ...scored };
    };
    const started = performance.now();
    const result = await runEvaluation({
      kind, items: mosaics, settings, outDir: opts.out, processItem, shard, limit, progress: { quiet: opts.quiet },
    });
    if (result.processed) {
      const seconds = (performance.now() - started) / 1000;
      console.log(`${result.processed} mosaic(s) in ${seconds.toFixed(1)} s (${(seconds / result.processed).toFixed(2)} s each)${result.resumed ? `, ${result.resumed} resumed` : ''}`);
    }
    const { summary: s } = result;
    if (!s) {
      console.log(`no mosaic in shard ${opts.shard} (${mosaics.length} in all); nothing written but ${opts.out}/run.json`);
      return 0;
    }
    console.log(`${s.n} mosaic(s), ${s.tiles} tiles in ${opts.out}: score / hit rate (%)`);
    for (const m of methods) {
      console.log(`  ${m.padEnd(26)} ${(s.score[m] * 100).toFixed(2).padStart(6)} / ${(s.hitRate[m] * 100).toFixed(2).padStart(6)}`);
    }
    console.log(`wrote ${result.files.join(', ')}`);
    return 0;
  } finally {
    await explainer.release();
  }
}
