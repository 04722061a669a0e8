// The model box's picker: the site's models (models/index.json) and the visitor's own,
// opened with “Open your model…” (an exported folder, picked or dropped on the box) and
// kept in this browser (web/page/lib/local-models.js), each listed with its classes, input
// size and size. The choice lives in the link (?model=NAME); opening a model is the
// page's `open(entry, base)`.
import { checkModelFolder, folderFromDrop, folderFromInput } from './lib/model-folder.js';
import { commitLocalModel, dropStagedModel, listLocalModels, missingLocalFiles, removeLocalModel, stageLocalModel } from './lib/local-models.js';
import { fetchModelBytes } from '../lib/model-fetch.js';
import { modelInfo, pageBytes, pageFiles } from '../lib/model-files.js';

const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;

// What opening the model downloads, as the load bar counts it, and what the Attribution
// panel adds when it first runs: "22.9 MB (+23.2 MB for Attribution)".
function sizeWords(entry, info) {
  if (entry.kind === 'text') return mb(entry.bytes ?? info.bytes); // the page offers no Attribution panel for text
  const start = entry.split?.bytes ?? entry.bytes;
  if (!start) return mb(info.bytes);
  return `${mb(start)}${entry.attribution?.bytes ? ` (+${mb(entry.attribution.bytes)} for Attribution)` : ''}`;
}

// The input size as the page writes sizes: width × height. A site's text model is listed
// from its index entry alone: none of its files is read until it is chosen.
const describe = ({ entry, info, local }) => [
  entry.name,
  ...(info ? [`${info.classes} classes`, info.imageSize ? `${info.imageSize[1]}×${info.imageSize[0]}` : 'text', sizeWords(entry, info)]
    : entry.kind === 'text' ? ['text', mb(entry.bytes ?? 0)] : []),
  ...(local ? ['in this browser'] : []),
].join(' · ');

// A site model's classes and input size, from its metadata (read through the cache the
// Worker reads it from); null when it cannot be read (the Worker then says why).
async function siteInfo(entry, base) {
  try {
    const url = new URL(entry.metadata, base).href;
    const { bytes } = await fetchModelBytes(url, { sha256: entry.sha256?.[entry.metadata] });
    const metadata = JSON.parse(new TextDecoder().decode(bytes));
    return modelInfo(metadata, pageBytes(entry));
  } catch {
    return null;
  }
}

export function createModelPicker({ box, select, openButton, folderInput, removeButton, siteBase, link, open, onError, onNotice, statusLine }) {
  let site = [];    // [{ entry, base, info }]
  let local = [];   // the same, local: true
  let current = null;
  const choices = () => [...site, ...local];

  function fill() {
    const option = (c, i) => new Option(describe(c), String(i));
    const group = (label, list, from) => {
      const g = document.createElement('optgroup');
      g.label = label;
      g.append(...list.map((c, i) => option(c, from + i)));
      return g;
    };
    select.replaceChildren(...(site.length ? [group('On this site', site, 0)] : []),
      ...(local.length ? [group('In this browser', local, site.length)] : []));
    select.disabled = !choices().length;
    showCurrent();
  }

  function showCurrent() {
    const i = choices().indexOf(current);
    if (i >= 0) select.value = String(i);
    removeButton.hidden = !current?.local;
  }

  // Opens a choice; a kept model the browser has partly cleared says so and is not opened.
  async function choose(choice) {
    if (choice.local) {
      const missing = await missingLocalFiles(choice, pageFiles(choice.entry));
      if (missing.length) {
        showCurrent();
        onError(`${choice.entry.name} is no longer whole in this browser's storage (${missing[0]} is gone: the browser may have cleared it). Open its folder again with “Open your model…”.`);
        return false;
      }
    }
    current = choice;
    showCurrent();
    open(choice.entry, choice.base);
    return true;
  }

  async function readSite() {
    try {
      const r = await fetch(new URL('index.json', siteBase), { cache: 'no-cache' }); // it names the files' hashes: never an old copy
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      // Photo and text models alike: a text model turns the photo area into a text box.
      return { models: (await r.json()).models ?? [] };
    } catch (err) {
      return { models: [], error: `Could not read models/index.json (${err.message}). Run \`npm run build\`.` };
    }
  }

  // Lists the models, takes the link's `model`, and opens the linked one, else the first.
  async function load() {
    const [index, kept] = await Promise.all([readSite(), listLocalModels(siteBase).catch(() => [])]);
    site = index.models.map((entry) => ({ entry, base: siteBase, info: null }));
    local = kept;
    fill();
    for (const c of site.filter((x) => x.entry.kind !== 'text')) siteInfo(c.entry, c.base).then((info) => { c.info = info; if (info) fill(); });
    const names = choices().map((c) => c.entry.name);
    const linked = link.peek('model');
    if (linked !== undefined && !names.includes(linked)) {
      link.forget('model');
      onNotice(`The link names the model “${linked}”, which is not on this site and not in this browser: a model opened with “Open your model…” `
        + 'is kept only in the browser that opened it. Open its folder here with “Open your model…” to see it.');
    }
    const { model } = link.take('index', { models: names }, {}); // `model` sets no page field
    if (!choices().length) {
      statusLine.textContent = 'No model';
      onError(index.error ?? 'No explainer graph was built: models/index.json lists none. Run `npm run build`.');
      return;
    }
    if (index.error) onError(index.error);
    const wanted = choices().find((c) => c.entry.name === model);
    if (!(wanted && await choose(wanted)) && !current) await choose(site[0] ?? local[0]);
  }

  // Checks a folder and stores its models' files beside those kept; opens each with every
  // graph checked (the first last, so that it stays open); only then lists them in place
  // of the kept models of their names. A failure takes the new files back and reopens the
  // model that was open: what was kept and what was open stay as they were.
  async function addFolder(folder) {
    const status = statusLine.textContent;
    const before = current;
    const staged = [];
    const takeBack = () => Promise.all(staged.map((s) => dropStagedModel(s).catch(() => {})));
    try {
      const models = await checkModelFolder(folder, { taken: site.map((c) => c.entry.name) });
      for (const m of models) {
        const keeping = (done, total) => { statusLine.textContent = `Keeping ${m.entry.name} in this browser: file ${done} of ${total}…`; };
        keeping(0, m.files.length);
        staged.push(await stageLocalModel(siteBase, m, keeping));
      }
    } catch (err) {
      await takeBack();
      statusLine.textContent = status;
      return onError(`Could not open your model: ${err.message}`);
    }
    for (const s of [...staged.slice(1), staged[0]]) {
      const opened = await open(s.entry, s.base, { verify: true });
      if (opened.ready) continue;
      await takeBack();
      if (opened.aborted) return; // the visitor chose another model meanwhile
      if (before) await open(before.entry, before.base);
      return onError(`Could not open your model: ${s.entry.name} could not be loaded (${opened.error.message}), so nothing of “${folder.folder}” was kept`);
    }
    try {
      for (const s of staged) await commitLocalModel(s);
    } catch (err) {
      return onError(`Could not keep your model: ${err.message}`);
    }
    local = await listLocalModels(siteBase);
    current = local.find((c) => c.entry.name === staged[0].entry.name);
    fill();
  }

  async function remove() {
    const gone = current;
    if (!gone?.local) return;
    try {
      await removeLocalModel(siteBase, gone.entry.name);
    } catch (err) {
      return onError(`Could not remove ${gone.entry.name}: ${err.message}`);
    }
    local = local.filter((c) => c !== gone);
    current = null;
    fill();
    const next = site[0] ?? local[0];
    if (next) await choose(next);
    else statusLine.textContent = 'No model';
  }

  select.addEventListener('change', () => choose(choices()[Number(select.value)]));
  openButton.addEventListener('click', () => folderInput.click());
  folderInput.addEventListener('change', () => {
    const folder = folderFromInput(folderInput.files);
    folderInput.value = ''; // the same folder chosen again must fire again
    if (folder.files.size) addFolder(folder);
  });
  removeButton.addEventListener('click', remove);
  // A folder dropped on the box is a model, not a photo: the page's photo drop never sees it.
  box.addEventListener('dragover', (e) => e.preventDefault());
  box.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();
    folderFromDrop(e.dataTransfer).then((folder) => {
      if (folder) addFolder(folder);
      else onError('Drop a model folder here (one that vit-relevance export wrote), not single files.');
    }, (err) => onError(`Could not read the dropped folder: ${err.message}`));
  });

  return { load };
}
