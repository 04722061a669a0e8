// The default text model's folder served beside the site, file by file under
// text-models/<folder>/, for the browser tests and the text benchmark: the site itself does
// not carry the text model (the page stays image-only), so a visitor downloads none of it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL } from '../../runtime/node/index.js';

// The folder's URL, relative to the site.
export const TEXT_MODEL_URL = `text-models/${path.basename(DEFAULT_TEXT_MODEL)}/`;

// startSite's overrides for every file of the folder.
export function textModelRoutes() {
  return Object.fromEntries(readdirSync(DEFAULT_TEXT_MODEL).map((f) => [
    `/${TEXT_MODEL_URL}${f}`,
    { body: readFileSync(path.join(DEFAULT_TEXT_MODEL, f)), type: f.endsWith('.json') ? 'application/json' : 'application/octet-stream' },
  ]));
}
