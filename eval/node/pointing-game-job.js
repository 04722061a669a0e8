// Node-only: the grid pointing game (Böhle et al., CVPR'22) as a job for
// cli/eval-command.js. Items are 2×2 mosaics of labelled photos of different classes
// (eval/mosaic.js, shuffled with --seed); the step per mosaic decodes its four
// photos and scores it (eval/pointing-game-protocol.js).
import { createHash } from 'node:crypto';
import { checkPhotoSide, decodePhoto } from './photo.js';
import { labelledItems } from './dataset.js';
import { modelSettings } from './model-settings.js';
import { UserError } from '../../runtime/errors.js';
import { kind } from '../pointing-game.js';
import { buildMosaics } from '../mosaic.js';
import { tilePreprocess } from '../pointing-game-tiles.js';
import { scoreMosaic } from '../pointing-game-protocol.js';

export const GRID = 2;

// Which photos make up every mosaic: a resumed run or a shard on another photo list (the
// keys would name other mosaics) is refused as "other settings".
function mosaicsSha256(mosaics) {
  return createHash('sha256').update(JSON.stringify(mosaics.map((m) => m.photos.map((p) => [p.name, p.label])))).digest('hex');
}

export const pointingGameJob = {
  kind,
  takesAttribution: true,
  unit: 'mosaic',

  // The whole photo list first: every shard must number the same mosaics the same way.
  async items({ opts, metadata }) {
    const { items: photos, data, notes } = await labelledItems(opts, metadata);
    const items = buildMosaics(photos, { seed: opts.seed, tiles: GRID * GRID });
    if (!items.length) {
      const classes = new Set(photos.map((i) => i.label)).size;
      throw new UserError(`a mosaic needs photos of ${GRID * GRID} different classes; the folder has ${photos.length} labelled photo(s) of ${classes} class(es)`);
    }
    const unused = photos.length - items.length * GRID * GRID;
    notes.push(`${items.length} mosaic(s) of ${GRID}×${GRID} from ${photos.length} labelled photo(s), seed ${opts.seed}${unused ? ` (${unused} photo(s) unused)` : ''}`);
    return { items, data, notes };
  },

  async prepare({ explainer, attribution, core, modelFile, methods, startLayer, opts, items }) {
    const { metadata } = explainer;
    const settings = {
      ...await modelSettings({ explainer, modelFile, methods, startLayer, attribution }),
      seed: opts.seed,
      grid: GRID,
      mosaicsSha256: mosaicsSha256(items),
      preprocess: metadata.preprocess,
      tilePreprocess: tilePreprocess(metadata.preprocess, GRID),
    };
    const processItem = async (mosaic) => {
      const photos = [];
      for (const photo of mosaic.photos) photos.push(checkPhotoSide(await decodePhoto(photo.file, photo.name), metadata, photo.name));
      const classes = mosaic.photos.map((p) => p.label);
      const scored = await scoreMosaic({ explainer, attribution, core, photos, classes, options: { methods, startLayer, grid: GRID } });
      return { photos: mosaic.photos.map((p) => p.name), classes, ...scored };
    };
    return { settings, processItem };
  },

  summaryLines(s, methods) {
    return [
      `${s.tiles} tiles: score / hit rate (%)`,
      ...methods.map((m) => `  ${m.padEnd(26)} ${(s.score[m] * 100).toFixed(2).padStart(6)} / ${(s.hitRate[m] * 100).toFixed(2).padStart(6)}`),
    ];
  },
};
