// The photos of an evaluation and their labels (class ids). Photos are the PNG, JPEG and
// WebP files of one folder (by extension, any case), sorted by file name with a plain
// code-unit comparison so every machine and locale agrees on the order (and on shards).
// Labels come from either
//   - the file names, `<wnid>_<anything>.<ext>`, with an ImageNet synset_words.txt
//     (`<wnid> <name, synonyms>` per line; line index = class id), or
//   - a CSV `file,label` (header optional) whose label is a class id, a wnid or a class
//     name (matched like `explain --class`, runtime/targets.js).
// → items [{ name: file name (unique), file: path, label: class id }].
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { resolveClass } from '../../runtime/targets.js';
import { compareKeys } from './json.js';
import { UserError } from '../../runtime/errors.js';
import { describeData } from './data-identity.js';

const PHOTO = /\.(png|jpe?g|webp)$/i;
const WNID = /^n\d{8}$/;

export const compareNames = compareKeys;

// "a, b, c, d, e and 7 more": long lists of files in one readable line.
export function listSome(names, max = 5) {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}

export function isPhotoName(name) {
  return PHOTO.test(name);
}

export async function listPhotos(dir) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') throw new UserError(`image folder ${dir} does not exist`);
    if (err.code === 'ENOTDIR') throw new UserError(`${dir} is a file; --images takes a folder of photos`);
    throw new UserError(`cannot read image folder ${dir}: ${err.message}`);
  }
  const names = entries.filter((e) => !e.isDirectory() && isPhotoName(e.name)).map((e) => e.name).sort(compareNames);
  if (!names.length) throw new UserError(`image folder ${dir} holds no photos (.png, .jpg, .jpeg, .webp)`);
  return names;
}

async function readText(file, what) {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${what} ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
}

// synset_words.txt → [{ wnid, name }] in class-id order.
export function parseSynsetWords(text, source = 'synset_words.txt') {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  return lines.map((line, i) => {
    const m = /^\s*(n\d{8})\s+(.*)$/.exec(line);
    if (!m) throw new UserError(`${source} line ${i + 1} is not "<wnid> <class name>": ${line.slice(0, 60)}`);
    return { wnid: m[1], name: m[2].trim() };
  });
}

// The synset list must number classes as the model does, when the model says how.
function checkSynsetOrder(synsets, metadata, source) {
  if (!metadata) return;
  if (synsets.length !== metadata.labels.length) {
    throw new UserError(`${source} lists ${synsets.length} classes, the model has ${metadata.labels.length}`);
  }
  const wrong = metadata.wnids ? synsets.findIndex((s, id) => s.wnid !== metadata.wnids[id]) : -1;
  if (wrong >= 0) {
    throw new UserError(`${source} line ${wrong + 1} is ${synsets[wrong].wnid}, the model's class ${wrong} is ${metadata.wnids[wrong]}: not the model's class order`);
  }
}

// File name → class id from its `<wnid>_` prefix; names without a known-looking prefix
// are reported as unlabelled, wnids missing from the list as errors.
export function labelsFromNames(names, synsets, source = 'synset_words.txt') {
  const ids = new Map(synsets.map((s, id) => [s.wnid, id]));
  const labels = new Map();
  const unknown = [];
  for (const name of names) {
    const prefix = name.split('_')[0];
    if (ids.has(prefix)) labels.set(name, ids.get(prefix));
    else if (WNID.test(prefix) && name.includes('_')) unknown.push(name);
  }
  if (unknown.length) throw new UserError(`${unknown.length} photo(s) name a wnid that ${source} does not list: ${listSome(unknown)}`);
  return labels;
}

// Minimal RFC 4180: fields separated by commas, double quotes around fields that hold
// commas or quotes ("" inside is a quote). → array of rows (arrays of strings).
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const endField = () => { row.push(field); field = ''; };
  const endRow = () => { endField(); if (row.some((f) => f.trim() !== '')) rows.push(row); row = []; };
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field.trim() === '') {
      quoted = true;
      field = '';
    } else if (c === ',') {
      endField();
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
    } else {
      field += c;
    }
    i++;
  }
  if (quoted) throw new UserError('CSV ends inside a quoted field (a missing closing ")');
  if (field !== '' || row.length) endRow();
  return rows;
}

// A CSV label: class id, wnid (needs the model's wnids) or class name.
export function resolveLabel(text, metadata) {
  if (WNID.test(text.trim())) {
    const id = metadata.wnids?.indexOf(text.trim()) ?? -1;
    if (!metadata.wnids) throw new Error(`"${text}" looks like a wnid but the model's metadata lists no wnids; use class ids or names`);
    if (id < 0) throw new Error(`wnid ${text} is not a class of this model`);
    return id;
  }
  return resolveClass(metadata, text, 'label');
}

export function labelsFromCsv(text, metadata, source = 'labels.csv') {
  let rows = parseCsv(text.replace(/^\uFEFF/, ''));
  if (rows.length && rows[0][0]?.trim().toLowerCase() === 'file' && rows[0][1]?.trim().toLowerCase() === 'label') rows = rows.slice(1);
  const labels = new Map();
  rows.forEach((row, i) => {
    const where = `${source} row ${i + 1}`;
    if (row.length !== 2) throw new UserError(`${where} has ${row.length} field(s), expected "file,label" (quote names holding commas)`);
    const [file, label] = row.map((f) => f.trim());
    let id;
    try {
      id = resolveLabel(label, metadata);
    } catch (err) {
      throw new UserError(`${where} (${file}): ${err.message}`);
    }
    if (labels.has(file) && labels.get(file) !== id) throw new UserError(`${where}: ${file} is labelled twice, as ${labels.get(file)} and ${id}`);
    labels.set(file, id);
  });
  return labels;
}

// Options: images (folder), labels (a .csv, or a synset_words file), metadata (the
// model's; needed for CSV labels, checks the synset order otherwise), skipUnlabelled.
export async function loadDataset({ images, labels: labelsFile, metadata, skipUnlabelled = false }) {
  const names = await listPhotos(images);
  if (!labelsFile) throw new UserError('no label source: give --labels synset_words.txt or --labels labels.csv');
  if ((await stat(labelsFile).catch(() => null))?.isDirectory()) throw new UserError(`--labels ${labelsFile} is a folder, expected a file`);
  const text = await readText(labelsFile, 'label file');
  const source = path.basename(labelsFile);
  let labels;
  if (/\.csv$/i.test(labelsFile)) {
    if (!metadata) throw new UserError('CSV labels need the model metadata to resolve class names');
    labels = labelsFromCsv(text, metadata, source);
    const present = new Set(names);
    const missing = [...labels.keys()].filter((f) => !present.has(f));
    if (missing.length) throw new UserError(`${source} names ${missing.length} file(s) that are not photos in ${images}: ${listSome(missing)}`);
  } else {
    const synsets = parseSynsetWords(text, source);
    checkSynsetOrder(synsets, metadata, source);
    labels = labelsFromNames(names, synsets, source);
  }
  const unlabelled = names.filter((n) => !labels.has(n));
  if (unlabelled.length && !skipUnlabelled) {
    throw new UserError(`${unlabelled.length} photo(s) in ${images} have no label in ${source}: ${listSome(unlabelled)} (--skip-unlabelled leaves them out)`);
  }
  const items = names.filter((n) => labels.has(n)).map((name) => ({ name, file: path.join(images, name), label: labels.get(name) }));
  if (!items.length) throw new UserError(`no photo in ${images} has a label in ${source}`);
  return { items, skipped: unlabelled };
}

// The labelled photos of an evaluation's --images and --labels (opts), what run.json
// records about them (./data-identity.js) and a note on the ones left out.
// → { items, data, notes }
export async function labelledItems({ images, labels, skipUnlabelled }, metadata) {
  const { items, skipped } = await loadDataset({ images, labels, metadata, skipUnlabelled: Boolean(skipUnlabelled) });
  const data = await describeData({ images, labels, files: items });
  const notes = skipped.length ? [`left out ${skipped.length} unlabelled photo(s): ${listSome(skipped)}`] : [];
  return { items, data, notes };
}
