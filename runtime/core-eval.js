// @ts-check
// Evaluation wrappers of runtime/core.js over src/eval: the perturbation test (pixel
// ranking, perturbed model inputs, AUC), the grid pointing game, and the
// ImageNet-segmentation counts. Arrays cross into the WebAssembly heap in one copy each way;
// the C++ core checks values (InputError with its message); results are copies owned by JS.
// Their own entry, loadEvalCore: runtime/core.js does not import this file, so the browser's
// scripts (which never evaluate) ship without it.
import { heapHelpers } from './core-heap.js';
import { loadCoreWith } from './core.js';

/**
 * runtime/core.js's loadCore, with the evaluation functions (listed there) on the core.
 * @param {Parameters<typeof import('./core.js').loadCore>[0]} [options]
 */
export const loadEvalCore = (options) => loadCoreWith(evalApi, options);

export function evalApi(M) {
  const { heapFloats, heapBytes, using, floatsOut, bytesOut, need } = heapHelpers(M);

  // Float arrays are copied into float32; byte arrays must already be bytes (a plain array
  // would be truncated silently on the copy).
  const checkFloats = (map, what) => {
    need(map instanceof Float32Array || map instanceof Float64Array || Array.isArray(map),
      `${what} must be a Float32Array`);
    need(map.length > 0, `${what} is empty`);
    return map;
  };
  const checkBytes = (bytes, what) => {
    need(bytes instanceof Uint8Array || bytes instanceof Uint8ClampedArray, `${what} must be a Uint8Array`);
    need(bytes.length > 0, `${what} is empty`);
    return bytes;
  };
  const checkNumbers = (list, what) => {
    need(Array.isArray(list) || ArrayBuffer.isView(list), `${what} must be an array of numbers`);
    const out = Array.from(list);
    need(out.every((v) => typeof v === 'number'), `${what} must be an array of numbers`);
    return out;
  };
  const checkInt = (v, what) => need(Number.isInteger(v), `${what} must be an integer, got ${v}`);
  const checkRect = (r, what) => {
    need(r && typeof r === 'object', `${what} must be { x, y, width, height }`);
    for (const k of ['x', 'y', 'width', 'height']) checkInt(r[k], `${what}.${k}`);
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  };

  const removalOrderIds = Object.freeze([...M.removalOrderIds()]);
  const checkOrder = (order, what) => need(removalOrderIds.includes(order),
    `${what} must be one of ${removalOrderIds.join(', ')}, got ${JSON.stringify(order)}`);

  // Pixel indices in removal order; equal values go lower index first.
  function removalRanking(map, order) {
    checkFloats(map, 'removalRanking: map');
    checkOrder(order, 'removalRanking: order');
    return using([heapFloats(map)], (f) => M.removalRanking(f, order));
  }

  // One normalised CHW image per fraction: Float32Array [fractions.length, 3, height, width].
  /**
   * @param {Uint8Array | Uint8ClampedArray} rgba @param {number} width @param {number} height
   * @param {ArrayLike<number>} map
   * @param {{ fractions?: number[], order?: string, mean?: number[], std?: number[] }} [options]
   */
  function perturbedInputs(rgba, width, height, map, { fractions, order, mean, std } = {}) {
    checkBytes(rgba, 'perturbedInputs: rgba');
    checkInt(width, 'perturbedInputs: width');
    checkInt(height, 'perturbedInputs: height');
    checkFloats(map, 'perturbedInputs: map');
    const options = {
      fractions: checkNumbers(fractions, 'perturbedInputs: options.fractions'),
      order,
      mean: checkNumbers(mean, 'perturbedInputs: options.mean'),
      std: checkNumbers(std, 'perturbedInputs: options.std'),
    };
    checkOrder(order, 'perturbedInputs: options.order');
    return using([heapBytes(rgba), heapFloats(map)], (b, f) =>
      floatsOut(M.perturbedInputs(b, width, height, f, options)));
  }

  function removedPixelCount(pixels, fraction) {
    need(Number.isSafeInteger(pixels) && pixels >= 0, `removedPixelCount: pixels must be a non-negative integer, got ${pixels}`);
    need(typeof fraction === 'number', 'removedPixelCount: fraction must be a number');
    return M.removedPixelCount(pixels, fraction);
  }

  function positiveShareInside(map, rows, cols, rect) {
    checkFloats(map, 'positiveShareInside: map');
    checkInt(rows, 'positiveShareInside: rows');
    checkInt(cols, 'positiveShareInside: cols');
    const r = checkRect(rect, 'positiveShareInside: rect');
    return using([heapFloats(map)], (f) => M.positiveShareInside(f, rows, cols, r));
  }

  function segmentationCounts(map, mask) {
    checkFloats(map, 'segmentationCounts: map');
    checkBytes(mask, 'segmentationCounts: mask');
    return using([heapFloats(map), heapBytes(mask)], (f, b) => M.segmentationCounts(f, b));
  }

  function averagePrecision(scores, positive) {
    checkFloats(scores, 'averagePrecision: scores');
    checkBytes(positive, 'averagePrecision: positive');
    return using([heapFloats(scores), heapBytes(positive)], (f, b) => M.averagePrecision(f, b));
  }

  function maskInModelFrame(mask, maskWidth, maskHeight, region, outWidth, outHeight) {
    checkBytes(mask, 'maskInModelFrame: mask');
    for (const [v, what] of [[maskWidth, 'maskWidth'], [maskHeight, 'maskHeight'],
      [outWidth, 'outWidth'], [outHeight, 'outHeight']]) checkInt(v, `maskInModelFrame: ${what}`);
    const r = checkRect(region, 'maskInModelFrame: region');
    return using([heapBytes(mask)], (b) =>
      bytesOut(M.maskInModelFrame(b, maskWidth, maskHeight, r, outWidth, outHeight)));
  }

  return {
    removalOrderIds,
    removalRanking,
    perturbedInputs,
    removedPixelCount,
    trapezoidArea: (x, y) => M.trapezoidArea(checkNumbers(x, 'trapezoidArea: x'), checkNumbers(y, 'trapezoidArea: y')),
    perturbationAuc: (fractions, accuracy) => M.perturbationAuc(
      checkNumbers(fractions, 'perturbationAuc: fractions'), checkNumbers(accuracy, 'perturbationAuc: accuracy')),
    positiveShareInside,
    segmentationCounts,
    averagePrecision,
    maskInModelFrame,
  };
}
