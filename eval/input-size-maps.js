// @ts-check
// What every evaluation protocol does with the core's maps (computed with the options of
// runtime/metadata.js mapOptions): bring each to the model's input size. Patch-grid maps are
// upsampled bilinearly (×16 for DeiT), as the official evaluation does; lrp_full is already
// a pixel map.

export function inputSizeMap(core, map, H, W) {
  const [rows, cols] = map.shape;
  return rows === H && cols === W ? map.data : core.upsample(map.data, rows, cols, H, W);
}
