// A model folder the visitor picks (<input type=file webkitdirectory>) or drops, as
// `vit-relevance export` writes it: its index.json, metadata, graphs and weights. It is
// checked before anything is read in bulk; each problem is one line naming the folder.
import { validateMetadata } from 'vit-relevance/runtime/metadata.js';
import { modelInfo, pageFiles } from '../../lib/model-files.js';

const MB = 1048576;
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
// A name from the folder as a message quotes it: in quotes, a long one cut.
const quoted = (text) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
// A model's name and its files' names become the keys it is kept under in this browser
// (web/page/lib/local-models.js): plain names only, so that none can name another folder
// ("..", "a/b"), another origin ("https:evil.example") or a query. Every name
// `vit-relevance export` writes passes (models/exporter/metadata.py, MODEL_NAME).
export const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
// A file is read whole to be hashed and opened: one of 2 GB could not be read at all (the
// browser's "could not be read" names no file), so its size is checked before it is read.
export const MAX_FILE_BYTES = 2000 * MB;

// A directory input's files → { folder, files: Map of the folder's own files by name }.
export function folderFromInput(fileList) {
  const files = new Map();
  let folder = '';
  for (const file of fileList) {
    const [top, ...rest] = file.webkitRelativePath.split('/');
    folder ||= top;
    if (rest.length === 1) files.set(rest[0], file);
  }
  return { folder, files };
}

// A drop → the same for the dropped folder, or null when it holds none. The entries are
// taken before the first await: a drop's items can be read during its event only.
export async function folderFromDrop(dataTransfer) {
  const dir = [...(dataTransfer?.items ?? [])].map((item) => item.webkitGetAsEntry?.()).find((e) => e?.isDirectory);
  if (!dir) return null;
  const files = new Map();
  const reader = dir.createReader();
  for (;;) { // readEntries gives the entries in batches, then an empty one
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) break;
    for (const e of batch.filter((x) => x.isFile)) files.set(e.name, await new Promise((resolve, reject) => e.file(resolve, reject)));
  }
  return { folder: dir.name, files };
}

// index.json and a model's metadata are read as text: a label list of a million classes is 20 MB.
const MAX_JSON_BYTES = 64 * MB;

async function readJson(file, what) {
  if (file.size > MAX_JSON_BYTES) throw new Error(`${what} is ${mb(file.size)}: the page reads JSON files of up to ${mb(MAX_JSON_BYTES)}`);
  try {
    return JSON.parse(await file.text());
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}

// → [{ entry, files: [[name, File]], info (model-files.js) }], one per model
// its index.json lists, or throws one line: not an exported folder, a name or file name
// that is not plain, a file missing, over MAX_FILE_BYTES or named by two models, metadata
// unreadable, a name the site already uses (`taken`), too big for the storage the browser
// leaves this site (`estimate`: navigator.storage's). Nothing is stored here.
export async function checkModelFolder({ folder, files }, { taken = [], estimate = () => globalThis.navigator?.storage?.estimate?.() } = {}) {
  const where = `“${folder}”`;
  const index = files.get('index.json');
  if (!index) throw new Error(`${where} is not an exported model folder: it has no index.json (vit-relevance export writes one)`);
  const listed = (await readJson(index, `${where}/index.json`)).models;
  if (!Array.isArray(listed) || !listed.length) throw new Error(`${where}/index.json lists no model`);
  // Photo and text models alike (a text model's folder holds its vocabulary too).
  const entries = listed;
  const models = [];
  const owner = new Map(); // file name → the model naming it
  for (const entry of entries) {
    if (typeof entry?.name !== 'string' || !entry.name || typeof entry.metadata !== 'string') {
      throw new Error(`${where}/index.json has a model without a name or metadata file`);
    }
    if (!SAFE_NAME.test(entry.name)) {
      throw new Error(`${where}/index.json names a model ${quoted(entry.name)}: a model's name is letters, digits, '.', '_' and '-', starting with a letter or digit`);
    }
    if (taken.includes(entry.name)) {
      throw new Error(`this site already has a model named ${entry.name}: export yours with --name to tell them apart`);
    }
    if (models.some((m) => m.entry.name === entry.name)) throw new Error(`${where}/index.json lists the model ${entry.name} twice`);
    const names = pageFiles(entry);
    const unsafe = names.find((n) => typeof n === 'string' && !SAFE_NAME.test(n));
    if (unsafe !== undefined) throw new Error(`${where}/index.json names a file ${quoted(unsafe)} for ${entry.name}: not a plain file name`);
    const missing = names.findIndex((n) => typeof n !== 'string' || !files.has(n));
    if (missing >= 0) throw new Error(`${where} lacks ${names[missing] ?? 'a file'}, which its index.json names for ${entry.name}`);
    // Each model keeps its own files: models over the same files would each keep a copy.
    const shared = names.find((n) => owner.has(n) && owner.get(n) !== entry.name);
    if (shared) throw new Error(`${where}/index.json lists ${owner.get(shared)} and ${entry.name} over the same file ${shared}: each model of a folder has its own files`);
    for (const n of names) owner.set(n, entry.name);
    const large = names.find((n) => files.get(n).size > MAX_FILE_BYTES);
    if (large) throw new Error(`${where}/${large} is ${mb(files.get(large).size)}: the page reads files of up to ${mb(MAX_FILE_BYTES)}`);
    const metadata = await readJson(files.get(entry.metadata), `${where}: the metadata ${entry.metadata}`);
    try {
      validateMetadata(metadata, entry.metadata);
    } catch (err) {
      throw new Error(`${where}: ${err.message}`);
    }
    const kept = names.map((n) => [n, files.get(n)]);
    const bytes = kept.reduce((sum, [, f]) => sum + f.size, 0);
    models.push({ entry, files: kept, info: modelInfo(metadata, bytes) });
  }
  const need = models.reduce((sum, m) => sum + m.info.bytes, 0);
  const { quota, usage } = await Promise.resolve(estimate()).catch(() => null) ?? {};
  if (quota !== undefined && usage !== undefined && quota - usage < need) {
    throw new Error(`${where} needs ${mb(need)} of the browser's storage, but this site has only ${mb(Math.max(0, quota - usage))} left`);
  }
  return models;
}
