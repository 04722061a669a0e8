// A model folder the visitor picks (<input type=file webkitdirectory>) or drops, as
// `vit-relevance export` writes it: its index.json, metadata, graphs and weights. It is
// checked before anything is read in bulk; each problem is one line naming the folder.
import { validateMetadata } from 'vit-relevance/runtime/metadata.js';
import { modelInfo, pageFiles } from './model-files.js';

const MB = 1048576;
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

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

async function readJson(file, what) {
  try {
    return JSON.parse(await file.text());
  } catch {
    throw new Error(`${what} is not valid JSON`);
  }
}

// → [{ entry, files: [[name, File]], info (model-files.js) }], one per model
// its index.json lists, or throws one line: not an exported folder, a file missing,
// metadata unreadable, a name the site already uses (`taken`), too big for the storage
// the browser leaves this site (`estimate`: navigator.storage's).
export async function checkModelFolder({ folder, files }, { taken = [], estimate = () => globalThis.navigator?.storage?.estimate?.() } = {}) {
  const where = `“${folder}”`;
  const index = files.get('index.json');
  if (!index) throw new Error(`${where} is not an exported model folder: it has no index.json (vit-relevance export writes one)`);
  const entries = (await readJson(index, `${where}/index.json`)).models;
  if (!Array.isArray(entries) || !entries.length) throw new Error(`${where}/index.json lists no model`);
  const models = [];
  for (const entry of entries) {
    if (typeof entry?.name !== 'string' || !entry.name || typeof entry.metadata !== 'string') {
      throw new Error(`${where}/index.json has a model without a name or metadata file`);
    }
    if (taken.includes(entry.name)) {
      throw new Error(`this site already has a model named ${entry.name}: export yours with --name to tell them apart`);
    }
    const names = pageFiles(entry);
    const missing = names.findIndex((n) => typeof n !== 'string' || !files.has(n));
    if (missing >= 0) throw new Error(`${where} lacks ${names[missing] ?? 'a file'}, which its index.json names for ${entry.name}`);
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
