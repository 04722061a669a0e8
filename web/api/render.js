// @ts-check
// The API's drawing: a map → ImageData, drawn by the WebAssembly core as the page draws
// it, and a pixel map's patch map. The core loads once, on the first call.
import { RENDER_SIDE, longSide } from 'vit-relevance/runtime/render-size.js';
import { loadCore } from 'vit-relevance/runtime/core.js';

/** @import { RelevanceMap, RenderOptions } from 'vit-relevance/runtime/explain-types.js' */

/** @param {{ core: URL }} site */
export function renderer(site) {
  let corePromise = null;
  /** Loads the WebAssembly core render() uses (once). @type {() => ReturnType<typeof loadCore>} */
  const loadRenderer = () => (corePromise ??= loadCore({ moduleUrl: site.core }));

  // A pixel map's patch map (attnlrp, cp_lrp, lrp_full; METHODS.md): the sum of the map over
  // each patch of grid = [rows, cols] (the model's metadata.architecture.grid), signed.
  /** @param {RelevanceMap} map @param {[number, number]} grid @returns {Promise<RelevanceMap>} */
  const patchMap = async (map, grid) => (await loadRenderer()).patchSum(map, grid);

  // A map → ImageData, drawn by the core as the page draws it (core.renderHeat): on its
  // colour scale (`scale` 'positive': min-max, 'signed': 0 white in the diverging rdbu
  // colormap), thresholded (removed pixels transparent), coloured; `display` smooth
  // (bilinear) or grid (one block per patch). With `photo` ({ bitmap|image, width, height }
  // and `region` from the result), the map is drawn over the photo at `opacity`, at the
  // photo's size, by the core's overlayOnPhoto: the pixels Node's render and the CLI give
  // for the same photo pixels; else `size` is the longest side.
  /**
   * @param {RelevanceMap} map
   * @param {RenderOptions & { photo?: { bitmap?: CanvasImageSource, image?: CanvasImageSource, width: number, height: number } | ImageBitmap }} [options]
   * @returns {Promise<ImageData>}
   */
  async function render(map, {
    colormap = 'jet', opacity = 0.5, threshold = 'none', display = 'smooth', scale = 'positive', size = RENDER_SIDE, photo, region,
  } = {}) {
    const core = await loadRenderer();
    const [rows, cols] = map.shape;
    const sampling = display === 'grid' ? 'patch_grid' : 'bilinear';
    if (!photo) {
      const heat = core.renderHeat(map.data, rows, cols, { scale, colormap, threshold, sampling, ...longSide(rows, cols, size) });
      return new ImageData(heat.data, heat.width, heat.height);
    }
    const given = /** @type {{ bitmap?: CanvasImageSource, image?: CanvasImageSource }} */ (photo); // or an ImageBitmap
    const { width, height } = photo;
    const canvas = new OffscreenCanvas(width, height);
    const ctx = /** @type {OffscreenCanvasRenderingContext2D} */ (canvas.getContext('2d'));
    ctx.drawImage(/** @type {CanvasImageSource} */ (given.bitmap ?? given.image ?? photo), 0, 0, width, height);
    const pixels = ctx.getImageData(0, 0, width, height).data;
    const data = core.overlayOnPhoto(pixels, width, height, core.scaled(map, scale), rows, cols,
      region ?? { x: 0, y: 0, width, height }, { colormap: core.colormapFor(scale, colormap), opacity, sampling, threshold });
    return new ImageData(data, width, height);
  }

  return { loadRenderer, patchMap, render };
}
