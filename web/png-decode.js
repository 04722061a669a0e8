// @ts-check
// The PNG decoder (runtime/png-decode.js), for the few PNGs a browser's canvas reads
// differently from PIL (web/lib/image-input.js): its own script, loaded on demand, so the
// API's bundle and the page's carry only the PNG header checks.
export { decodePng } from '../runtime/png-decode.js';
