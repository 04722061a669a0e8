// What part of the photo the model saw, in one sentence under the views: the centre crop
// leaves the rest of a non-square photo out (the page dims it, or shows the crop alone in
// the model's view); "no crop" squeezes the whole photo into the input size.
import { cropsPhoto } from '../../lib/overlay.js';

// photo: { width, height }; region: the model's box in photo pixels; crop: 'center' |
// 'none'; frame: 'photo' | 'model'; input: [height, width] of the model input.
export function framingNote(photo, region, crop, frame, [inH, inW]) {
  if (!region) return '';
  if (crop === 'none') {
    const squeezed = Math.abs(photo.width / photo.height - inW / inH) > 0.01;
    return `No crop: the model saw the whole photo, resized to ${inW}×${inH}${squeezed ? ` (its ${photo.width}×${photo.height} proportions squeezed)` : ''}.`;
  }
  if (!cropsPhoto(photo, region)) return `The model saw the whole photo (${inW}×${inH} input).`;
  const seenW = Math.min(photo.width, region.x + region.width) - Math.max(0, region.x);
  const seenH = Math.min(photo.height, region.y + region.height) - Math.max(0, region.y);
  const unseen = Math.round(100 * (1 - (seenW * seenH) / (photo.width * photo.height)));
  return frame === 'model'
    ? `The model's view: its ${inW}×${inH} centre crop, zoomed. The other ${unseen}% of the photo was never seen by the model.`
    : `Dimmed: outside the ${inW}×${inH} centre crop, ${unseen}% of the photo that the model never saw. Choose “whole photo” under Model input to let it see everything.`;
}
