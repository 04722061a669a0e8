// @ts-check
import { tokenLayout } from '../metadata.js';

// What every evaluation protocol does with the core's maps: compute them for the methods
// and bring each to the model's input size. Patch-grid maps are upsampled bilinearly (×16
// for DeiT), as the official evaluation does; lrp_full is already a pixel map.
export function mapOptions(metadata, methods, startLayer) {
  return { methods, ...tokenLayout(metadata), startLayer };
}

export function inputSizeMap(core, map, H, W) {
  const [rows, cols] = map.shape;
  return rows === H && cols === W ? map.data : core.upsample(map.data, rows, cols, H, W);
}
