// Which model files the built site carries: those of each models/index.json entry the page
// reads, and the extra model folders of the build setting VITREL_MODELS (folders written
// by `vit-relevance export`, comma-separated), which join the built-in model in the site's
// models/ folder and its index.json. The extra folders are checked before the build does
// any work, since a user's folder that is wrong would otherwise fail halfway through.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pageFiles } from '../../web/lib/model-files.js';

// The files of one index entry the site carries: those the page reads
// (web/lib/model-files.js: the one list, shared with "Open your model…"), the
// self-contained explainer graph `onnx`, which the page runs where there are no split graphs,
// and a text model's vocabulary, without which the element cannot read a text (an exported
// text model in VITREL_MODELS, for <vit-relevance text=…>: docs/embed.md, "Text").
export function siteFiles(m) {
  return [...new Set([m.onnx, ...pageFiles(m), m.vocab])].filter(Boolean);
}

const fail = (message) => { throw new Error(`VITREL_MODELS: ${message}`); };

// One exported folder → its index entries, each file it names present.
function readFolder(dir) {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) fail(`${dir} is not a folder`);
  const indexFile = path.join(dir, 'index.json');
  const notExported = `${dir} is not an exported model folder`;
  const howTo = 'make one with vit-relevance export SOURCE --out DIR';
  if (!existsSync(indexFile)) fail(`${notExported} (no index.json; ${howTo})`);
  let index;
  try {
    index = JSON.parse(readFileSync(indexFile, 'utf8'));
  } catch (err) {
    fail(`${notExported}: ${indexFile} is not valid JSON (${err.message})`);
  }
  const entries = Array.isArray(index?.models) ? index.models : [];
  if (!entries.length) fail(`${notExported}: ${indexFile} lists no model (${howTo})`);
  for (const entry of entries) {
    if (typeof entry?.name !== 'string' || !entry.name || !entry.metadata) fail(`${notExported}: an entry of ${indexFile} has no name or metadata`);
    for (const f of siteFiles(entry)) {
      if (typeof f !== 'string' || path.basename(f) !== f) fail(`${indexFile}: "${f}" is not a file name in the folder`);
      if (!existsSync(path.join(dir, f))) fail(`${indexFile} lists ${f}, which is missing (export the folder again)`);
    }
  }
  return entries;
}

// The setting's folders → [{ dir, entry }] in the setting's order, every model name and
// file name unique among them and the site's own models (`builtIn`: index entries, or
// just { name } before they are exported).
export function extraModels(setting = '', builtIn = []) {
  const dirs = setting.split(',').map((d) => d.trim()).filter(Boolean).map((d) => path.resolve(d));
  const names = new Map();
  const files = new Map();
  const claim = (entry, owner) => {
    const taken = names.get(entry.name);
    if (taken) fail(`the model name "${entry.name}" in ${owner} is also ${taken}'s (export it again with --name)`);
    names.set(entry.name, owner);
    for (const f of siteFiles(entry)) {
      if (files.has(f)) fail(`${owner} and ${files.get(f)} both have a file ${f}`);
      files.set(f, owner);
    }
  };
  for (const entry of builtIn) claim(entry, 'the built-in model');
  const models = [];
  for (const dir of dirs) {
    for (const entry of readFolder(dir)) {
      claim(entry, dir);
      models.push({ dir, entry });
    }
  }
  return models;
}
