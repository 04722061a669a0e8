// @ts-check
// The grid pointing game on one mosaic (METHODS.md, "Class-specificity"; Böhle et al.,
// CVPR'22): one explainer run with one target per tile (that tile's class); for every
// method, each class's map at the input size (patch maps upsampled bilinearly, lrp_full is
// already a pixel map) is scored by
//   share: its positive relevance inside the tile of that class / all its positive relevance;
//   hit:   1 when its hottest pixel (the first maximum, row-major) lies in that tile — the
//          classic pointing game; a map without any positive value never hits.
// Environment-neutral: the caller decodes the photos and owns the explainer and core.
import { inputSizeMap } from './input-size-maps.js';
import { mapOptions } from '../runtime/metadata.js';
import { mosaicInput } from './pointing-game-tiles.js';
import { attributionMaps, attributionMethodsOf } from '../runtime/attribution-maps.js';

// Index of the first maximum, or -1 when no value is positive.
export function hottestPixel(map) {
  let best = 0;
  for (let i = 1; i < map.length; i++) if (map[i] > map[best]) best = i;
  return map[best] > 0 ? best : -1;
}

export function pixelInRect(index, width, rect) {
  if (index < 0) return false;
  const x = index % width;
  const y = Math.floor(index / width);
  return x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
}

// photos: decoded { rgba, width, height } in mosaic order; classes: their class ids (all
// different); options: { methods, startLayer, grid (default 2) }; attribution: the opened
// attribution graphs when methods include attattr (one attribution per tile's class).
// → { predicted, shares: { method: [share per tile] }, hits: { method: [0|1 per tile] } }
export async function scoreMosaic({ explainer, attribution = null, core, photos, classes, options }) {
  const { metadata } = explainer;
  const [H, W] = metadata.architecture.image_size;
  const { methods, startLayer, grid = 2 } = options;
  if (new Set(classes).size !== classes.length) throw new Error(`the tiles of a mosaic need different classes, got ${classes.join(', ')}`);

  const input = mosaicInput(core, photos, metadata, grid);
  const attrMethods = attributionMethodsOf(core, methods);
  const explainerMethods = methods.filter((m) => !attrMethods.includes(m));
  const out = await explainer.explain(input.data, classes, { outputs: core.outputsFor(explainerMethods) });
  const attrMaps = attrMethods.length
    ? await attributionMaps({ attribution, core, metadata, pixels: input.data, classes, methods: attrMethods, startLayer })
    : classes.map(() => ({}));
  const shares = Object.fromEntries(methods.map((m) => [m, []]));
  const hits = Object.fromEntries(methods.map((m) => [m, []]));
  classes.forEach((_, k) => {
    const maps = {
      ...(explainerMethods.length ? core.computeMaps(out.tensors[k], mapOptions(metadata, explainerMethods, startLayer)) : {}),
      ...attrMaps[k],
    };
    const rect = input.rects[k];
    for (const method of methods) {
      const map = inputSizeMap(core, maps[method], H, W);
      shares[method].push(core.positiveShareInside(map, H, W, rect));
      hits[method].push(pixelInRect(hottestPixel(map), W, rect) ? 1 : 0);
    }
  });
  let predicted = 0;
  for (let c = 1; c < out.logits.length; c++) if (out.logits[c] > out.logits[predicted]) predicted = c;
  return { predicted, shares, hits };
}
