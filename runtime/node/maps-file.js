// @ts-check
// Writes DIR/maps.json (runtime/maps-json.js layout), creating DIR if needed.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatMapsJson } from '../maps-json.js';

export async function writeMapsJson(dir, doc) {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'maps.json');
  await writeFile(file, formatMapsJson(doc));
  return file;
}
