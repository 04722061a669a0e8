// `vit-relevance explain --text "…" | --text-file F`: explains texts with a text model
// (default: build/models/bert-mini-sst2-movies) through the Node API, prints each text's
// prediction and every method's top tokens (coloured where the terminal shows colours),
// and writes DIR/maps.json (runtime/text-maps-json.js) and DIR/report.html
// (runtime/node/text-report.js). Every input is checked before the graph opens (exit 2),
// and nothing is written before every text is explained.
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { UsageError, parseMethods } from '../args.js';
import { loadCore } from '../../runtime/core.js';
import { loadExplainer } from '../../runtime/node/index.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { readTextFile } from '../../runtime/node/text-file.js';
import { textReportHtml } from '../../runtime/node/text-report.js';
import { graphMethodIds } from '../../runtime/metadata.js';
import { checkText } from '../../runtime/text-input.js';
import { resolveClass } from '../../runtime/targets.js';
import { resolveStartLayer } from '../../runtime/explain-request.js';
import { textEntry, formatTextMapsJson } from '../../runtime/text-maps-json.js';
import { attributionMethodsOf } from '../../runtime/attribution-maps.js';
import { checkAttributionFiles } from '../../runtime/node/open-attribution.js';
import { openTextAttribution } from '../text-attribution-maps.js';
import { standingText, unlikelyNote } from '../../runtime/confidence.js';
import { colourSupported, onBackground } from '../terminal-colour.js';
import { checked, textModel } from '../text-model.js';

export const TEXT_FILES = ['maps.json', 'report.html'];

// The explain options that read photos: refused with a text.
const PHOTO_ONLY = ['crop', 'exif', 'colormap', 'scale', 'opacity', 'save-tensors', 'timings'];

// How many of each method's tokens the terminal shows.
const TOP_TOKENS = 5;

// The texts asked for, each checked: [{ text, where }].
async function textsOf(opts) {
  if (opts.text !== undefined && opts.textFile !== undefined) throw new UsageError('give --text or --text-file, not both');
  if (opts.text !== undefined) return [{ text: await checked(() => checkText(opts.text, '--text')), where: '--text' }];
  const texts = await readTextFile(opts.textFile);
  return texts.map((text, i) => ({ text, where: `${opts.textFile} line ${i + 1}` }));
}

// The top tokens of a map ([CLS] and [SEP], which have no characters, left out), coloured.
function topTokens(core, entry, map, colour) {
  const order = [...map.data.keys()].filter((i) => entry.offsets[i][1] > entry.offsets[i][0])
    .sort((a, b) => map.data[b] - map.data[a]).slice(0, TOP_TOKENS);
  const max = Math.max(...order.map((i) => Math.abs(map.data[i]))) || 1;
  const shades = colour ? core.colorize(Float32Array.from(order, (i) => 0.5 + map.data[i] / max / 2), 1, order.length, 'rdbu') : null;
  return order.map((i, k) => {
    const word = `${entry.tokens[i]} ${map.data[i].toPrecision(3)}`;
    return shades ? onBackground(word, [...shades.subarray(4 * k, 4 * k + 3)]) : word;
  }).join('  ');
}

function printText(core, entry, result, label, colour) {
  const shown = entry.text.length > 70 ? `${entry.text.slice(0, 69)}…` : entry.text;
  console.log(`${label}: "${shown}" (${entry.tokens.length} tokens)`);
  console.log(`  prediction: ${result.top5.map((c) => `${c.label} ${(c.prob * 100).toFixed(1)}%`).join(', ')}`);
  for (const note of result.notes) console.error(`note: ${note}`);
  for (const t of result.targets) {
    const named = (c) => `${c.label} (${standingText(c)})`;
    console.log(`  explained ${named(t)}${t.contrast ? ` rather than ${named(t.contrast)}` : ''}:`);
    const unlikely = unlikelyNote(t.label, t);
    if (unlikely) console.error(`note: ${unlikely}`);
    const width = Math.max(...Object.keys(t.maps).map((m) => m.length));
    for (const [m, map] of Object.entries(t.maps)) console.log(`    ${m.padEnd(width)}  ${topTokens(core, entry, map, colour)}`);
  }
}

// opts: explain's parsed options; classSpecs: its --class values; given: the names of the
// options on the command line.
export async function runText(opts, classSpecs, positionals, given) {
  if (positionals.length) throw new UsageError(`give a photo or --text / --text-file, not both (got ${positionals.join(' ')})`);
  const photoOnly = PHOTO_ONLY.filter((name) => given.has(name));
  if (photoOnly.length) throw new UsageError(`${photoOnly.map((n) => `--${n}`).join(', ')} ${photoOnly.length > 1 ? 'apply' : 'applies'} to photos, not texts`);
  const texts = await textsOf(opts);
  const { graph, metadata } = await textModel(opts);
  const classIds = await checked(() => [...new Set(classSpecs.map((s) => resolveClass(metadata, s, '--class')))]);
  if (!classIds.length) classIds.push(null);
  const contrast = opts.contrast === undefined ? undefined : await checked(() => resolveClass(metadata, opts.contrast, '--contrast'));
  if (contrast !== undefined && classIds.includes(contrast)) throw new UsageError(`--contrast ${opts.contrast} is also a --class: a class cannot be explained rather than itself`);
  const startLayer = await checked(() => resolveStartLayer(metadata, opts.startLayer, '--start-layer'));
  const core = await loadCore();
  const parsed = parseMethods(opts.method, core.methodIds);
  const methods = parsed === 'all' ? graphMethodIds(core, metadata) : parsed;
  // attattr reads Attr from the attribution graphs, the other methods the explainer's run
  const attributionMethods = attributionMethodsOf(core, methods);
  const explainerMethods = methods.filter((m) => core.explainerMethodIds.includes(m));
  const unsupported = explainerMethods.filter((m) => !graphMethodIds(core, metadata).includes(m));
  if (unsupported.length) throw new UsageError(`${unsupported.join(', ')}: not in one run of ${path.basename(graph)}`);
  if (attributionMethods.length) await checked(() => checkAttributionFiles(graph, metadata.architecture.blocks));
  await prepareOutDir(opts.out, TEXT_FILES);

  const explainer = await checked(() => loadExplainer({ model: graph, threads: opts.threads, engine: opts.engine }));
  const attribution = attributionMethods.length ? await checked(() => openTextAttribution({ core, graph, metadata, threads: opts.threads })) : null;
  if (contrast !== undefined) {
    for (const m of methods.filter((id) => !core.method(id).contrast)) {
      console.error(`note: ${m} left out: it reads only the attention, the same for every class, so it cannot contrast (docs/contrast.md)`);
    }
  }
  const colour = colourSupported(process.stdout);
  const entries = [];
  try {
    const targets = classIds.map((id) => (contrast === undefined ? id : { class: id, contrast }));
    for (const [i, { text, where }] of texts.entries()) {
      const opened = await checked(() => explainer.open({ text }));
      try {
        // With attattr alone the run still gives the prediction: raw_attention, the cheapest
        // map, stands in and is dropped.
        const result = await opened.explain({ targets, methods: explainerMethods.length ? explainerMethods : ['raw_attention'], startLayer });
        if (!explainerMethods.length) for (const t of result.targets) { t.maps = {}; t.wordMaps = {}; }
        if (attribution) await attribution.add(result, attributionMethods, startLayer);
        const entry = textEntry(result);
        entries.push(entry);
        printText(core, entry, result, texts.length > 1 ? `text ${i + 1} (${where})` : 'text', colour);
      } finally {
        opened.close();
      }
    }
  } finally {
    await Promise.all([explainer.close(), attribution?.close()]);
  }
  // Written once every text is explained: nothing half-written.
  const head = { model: metadata.name, start_layer: startLayer };
  const doc = texts.length === 1 && opts.textFile === undefined ? { ...head, ...entries[0] } : { ...head, texts: entries };
  await writeFile(path.join(opts.out, 'maps.json'), formatTextMapsJson(doc));
  await writeFile(path.join(opts.out, 'report.html'), textReportHtml(core, { model: metadata.name, startLayer, entries }));
  console.log(`wrote ${path.join(opts.out, 'maps.json')} and report.html (${texts.length} text${texts.length > 1 ? 's' : ''}, ${methods.length} method${methods.length > 1 ? 's' : ''})`);
  return 0;
}
