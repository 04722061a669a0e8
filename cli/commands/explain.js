// `vit-relevance explain`: explains a photo (or a normalised .npy tensor) with an explainer
// graph run by onnxruntime-web (the engine the page uses) and the WebAssembly core's
// relevance methods; prints the top-5 classes and writes DIR/maps.json plus one PNG
// overlay per target and method at the photo's own resolution.
import path from 'node:path';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parseOptions, parseMethods, formatOptions, formatMethods, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';
import { loadCore } from '../../runtime/core.js';
import { mapsDocument, mapsTarget } from '../../runtime/maps-json.js';
import { writeMapsJson } from '../../runtime/node/maps-file.js';
import { checkAttributionFiles, openAttributionFiles } from '../../runtime/node/open-attribution.js';
import { targetAttributionMaps, attributionMethodsOf } from '../../runtime/attribution-maps.js';
import { decodePhoto, loadExplainer, readModel } from '../../runtime/node/index.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { EXIF_MODES } from '../../runtime/node/image.js';
import { checkBlocksFor, graphMethodIds } from '../../runtime/metadata.js';
import { nearEqualNote, standingText, unlikelyNote } from '../../runtime/confidence.js';
import { isNpyPath, preparePhoto } from '../../runtime/node/photo-input.js';
import { writeCaptionedPng } from '../../runtime/node/png.js';
import { resolveClass } from '../../runtime/targets.js';
import { SCALE_CHOICES, scaleFor, scaleEnds, scaleWords } from '../../runtime/map-scale.js';
import { prepareTensorsDir, saveModelTensors } from '../../runtime/node/save-tensors.js';
import { MAX_TEXT_FILE_BYTES } from '../../runtime/node/text-file.js';
import { kindMismatch } from '../../runtime/text-metadata.js';
import { resolveStartLayer } from '../../runtime/explain-request.js';
import { runText } from './explain-text.js';

const OPTIONS = {
  model: { type: 'string', value: 'GRAPH.onnx|DIR', help: 'explainer graph (its metadata GRAPH.json beside it) or models folder; required for a photo; for a text, default build/models/bert-mini-sst2-movies' },
  text: { type: 'string', value: 'TEXT', help: 'a text to explain with a text model (instead of a photo)' },
  'text-file': { type: 'string', value: 'FILE', help: `texts to explain, one per line (UTF-8, no empty line, at most ${MAX_TEXT_FILE_BYTES / 2 ** 20} MB)` },
  class: { type: 'string', value: 'ID|NAME', oldName: 'target', help: 'class to explain, by id or name; repeat for several (default: the predicted class)' },
  method: { type: 'string', value: 'IDS', default: 'all', help: 'all (every method the model\'s graph feeds), or method ids separated by commas; lrp_full, attnlrp and cp_lrp give the input-size pixel map (maps.json and PNG), the others the patch map' },
  'start-layer': { type: 'string', value: 'N|last', default: '0', help: 'first block of the three rollouts (the paper evaluates photos with 1; last: the last block, as its BERT pipeline)' },
  threads: { type: 'int', min: 1, max: 64, help: 'ONNX Runtime threads (default: its own choice)' },
  engine: { type: 'string', value: 'web|node|auto', default: 'web', help: 'onnxruntime-web (as the page), onnxruntime-node (faster), or node when installed' },
  contrast: { type: 'string', value: 'ID|NAME', help: 'the contrast class: explain why each class rather than this one (docs/contrast.md)' },
  colormap: { type: 'string', default: 'jet', help: 'overlay colormap (positive scale; signed draws with rdbu)' },
  scale: { type: 'string', value: 'auto|positive|signed', default: 'auto', help: 'overlay colour scale: positive (min-max), signed (0 white, blue < 0 < red); auto: signed for lrp_full, attnlrp, cp_lrp and contrasts' },
  opacity: { type: 'string', value: 'X', default: '0.5', help: 'overlay opacity in [0,1]' },
  exif: { type: 'string', value: 'use|ignore', default: 'use', help: 'EXIF orientation: use (the photo as viewers show it) or ignore (the stored pixels, as PIL and the evaluations read them)' },
  crop: { type: 'string', value: 'center|none', default: 'center', help: 'center: the model\'s preprocessing (DeiT: short side 256, centre 224 crop); none: the whole photo resized to the input size (the official evaluation scripts\' choice)' },
  timings: { type: 'boolean', help: 'also write DIR/timings.json (where the time went; differs run to run)' },
  'save-tensors': { type: 'boolean', help: 'also write DIR/tensors/logits.npy [1,classes] and attn-block<b>.npy [heads,S,S] (every token, the checkpoint\'s order), to check an export against its framework' },
  out: { type: 'string', value: 'DIR', required: true, help: 'folder for maps.json and the PNG overlays' },
};

export const summary = 'explain a photo, .npy tensor or text with an explainer graph → DIR/maps.json + PNG overlays (a text: report.html)';

export function usage(core) {
  return `usage: vit-relevance explain <image|tensor.npy> --model GRAPH.onnx [--class ID|NAME]...
                             [--method all|ID,ID...] [--start-layer N|last] [--threads N] [--engine web]
                             [--contrast ID|NAME] [--colormap jet] [--scale auto] [--opacity 0.5]
                             [--exif use|ignore] [--crop center|none] [--timings] [--save-tensors]
                             --out DIR
       vit-relevance explain --text "…" | --text-file FILE [--model DIR] [--class NAME|ID]...
                             [--contrast NAME|ID] [--method all|ID,ID...] [--start-layer N|last] --out DIR

Runs the explainer graph on the input, prints the five most likely classes and computes the
relevance maps of each class with the WebAssembly core. Photos (PNG, JPEG, WebP, ...) are
preprocessed as the model's metadata says; a .npy is an already-normalised [3,H,W] or
[1,3,H,W] float32 tensor. Writes DIR/maps.json and DIR/<class id>-<label>-<method>.png: the map
drawn over the region of the photo the model saw, at the photo's resolution, above a band
naming the class, method and colour scale, with the scale's colours and end values. The same
inputs give the same bytes; --timings adds DIR/timings.json; --save-tensors adds the model's
logits and every block's attention as .npy in DIR/tensors (one more graph run). A photo's EXIF orientation
is applied (as viewers show it) unless --exif ignore (PIL's reading, the evaluations').
--crop none feeds the whole photo (no centre crop) and draws the maps over all of it.
A text (--text, or each line of --text-file) needs a text model (default: the one npm run build
exports, build/models/bert-mini-sst2-movies); it prints the prediction and each method's top
tokens and writes DIR/maps.json (tokens, offsets, words, token and word maps; a "texts" list for
--text-file) and DIR/report.html (the text in each method's colours; opens from disk).

options:
${formatOptions(OPTIONS)}

methods:
${formatMethods(core)}`;
}

// --class, and --target, its old name.
const CLASS_FLAGS = ['--class', '--target'];

// cli/args.js takes no positionals and no repeated options: pull out the input path and
// every --class here, hand the rest over.
export function splitArgv(argv) {
  const rest = [];
  const positionals = [];
  const classes = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const joined = CLASS_FLAGS.find((f) => a.startsWith(`${f}=`));
    if (CLASS_FLAGS.includes(a)) {
      if (i + 1 >= argv.length) throw new UsageError('--class needs a class id or name');
      classes.push(argv[++i]);
    } else if (joined) {
      classes.push(a.slice(joined.length + 1));
    } else if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('-') && a !== '-') {
      rest.push(a);
      const name = a.replace(/^--?/, '');
      const spec = OPTIONS[name];
      if (spec && spec.type !== 'boolean' && !a.includes('=') && i + 1 < argv.length) rest.push(argv[++i]);
    } else {
      positionals.push(a);
    }
  }
  return { rest, positionals, classes };
}

// --start-layer: a block index or 'last'.
function parseStartLayer(text) {
  if (text === 'last') return text;
  if (!/^\d+$/.test(text)) throw new UsageError(`--start-layer must be a block index (0, 1, …) or last, got "${text}"`);
  return Number(text);
}

function parseOpacity(text) {
  const v = Number(text);
  if (!/^\s*[\d.]+\s*$/.test(text) || !(v >= 0 && v <= 1)) throw new UsageError(`--opacity must be a number in [0,1], got "${text}"`);
  return v;
}

// Errors from files and the runtime are the user's to fix: one line, no stack.
async function userStep(fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(err.message);
  }
}

const ms = (t0) => Math.round((performance.now() - t0) * 10) / 10;

function printTop5(top5, input) {
  console.log(`top-5 for ${input}:`);
  for (const { id, label, prob } of top5) {
    console.log(`  ${String(id).padStart(4)}  ${(prob * 100).toFixed(2).padStart(6)}%  ${label}`);
  }
}

// One PNG per explained class (and contrast) and method: the map on its colour scale over
// the photo region, and under it a band naming the class, method and scale, with the scale's colours.
async function writeOverlays(core, dir, input, targets, labels, opts) {
  const files = [];
  for (const t of targets) {
    const what = t.contrast ? `${t.label} rather than ${t.contrast.label}` : `${t.label} (${standingText(t)})`;
    for (const [method, map] of Object.entries(t.maps)) {
      const scale = scaleFor(opts.scale, method, Boolean(t.contrast));
      const colormap = core.colormapFor(scale, opts.colormap);
      const rgba = core.overlayOnPhoto(input.rgba, input.width, input.height,
        core.scaled(map, scale), map.shape[0], map.shape[1], input.region, { colormap, opacity: opts.opacity });
      const [low, high] = scaleEnds(core, map, scale);
      const file = path.join(dir, overlayName(labels, t.id, method, t.contrast?.id));
      await writeCaptionedPng(file, { rgba, height: input.height }, input.width, {
        text: `${what} · ${core.method(method).name} · ${scaleWords(core, map, scale)}`, legend: core.legend(colormap), low, high,
      });
      files.push(file);
    }
  }
  return files;
}

// "243-bull_mastiff-transformer_attribution.png", "243-bull_mastiff-vs-282-tiger_cat-…": the id
// first (sorts and scripts as before), then the label in characters any file system takes.
const slug = (label) => String(label ?? '').replace(/[^A-Za-z0-9-]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40);
const classPart = (labels, id) => [String(id), slug(labels[id])].filter(Boolean).join('-');
const overlayName = (labels, id, method, contrast) =>
  `${classPart(labels, id)}${contrast === undefined ? '' : `-vs-${classPart(labels, contrast)}`}-${method}.png`;
const TIMINGS_FILE = 'timings.json';

export async function run(argv) {
  const { rest, positionals, classes: classSpecs } = splitArgv(argv);
  const opts = parseOptions(rest, OPTIONS, 'explain');
  if (opts.help) {
    console.log(usage(await loadCore()));
    return 0;
  }
  if (positionals.length !== 1 && opts.text === undefined && opts.textFile === undefined) {
    throw new UsageError(positionals.length ? `one input expected, got ${positionals.join(' ')}` : 'give an image, a .npy tensor or --text to explain');
  }
  opts.startLayer = parseStartLayer(opts.startLayer);
  // A text: cli/commands/explain-text.js.
  if (opts.text !== undefined || opts.textFile !== undefined) {
    const given = new Set(rest.filter((a) => a.startsWith('--')).map((a) => a.slice(2).split('=')[0]));
    return runText(opts, classSpecs, positionals, given);
  }
  if (opts.model === undefined) throw new UsageError('--model is required (see `vit-relevance explain --help`)');
  const [inputFile] = positionals;
  const opacity = parseOpacity(opts.opacity);
  if (!SCALE_CHOICES.includes(opts.scale)) throw new UsageError(`--scale must be ${SCALE_CHOICES.join(', ')}, got "${opts.scale}"`);
  if (!EXIF_MODES.includes(opts.exif)) throw new UsageError(`--exif must be ${EXIF_MODES.join(' or ')}, got "${opts.exif}"`);
  const started = performance.now();
  const timings = {};

  // Everything the user can get wrong is checked before the graph loads (seconds):
  // the output folder, the metadata, the classes, the methods and the input itself.
  await prepareOutDir(opts.out, ['maps.json', ...(opts.timings ? [TIMINGS_FILE] : [])]);
  if (!existsSync(opts.model)) throw new UserError(`cannot read model ${opts.model}: no such file`);
  // The graph found (a model folder: its index's) and its metadata read and checked, once:
  // loadExplainer takes them as they are.
  const model = await userStep(() => readModel(opts.model));
  const { metadata } = model;
  opts.model = model.file;
  const wrongKind = kindMismatch(metadata, 'image', path.basename(opts.model, '.onnx'));
  if (wrongKind) throw new UserError(wrongKind, { exitCode: 2 });
  opts.startLayer = await userStep(() => resolveStartLayer(metadata, opts.startLayer, '--start-layer'));
  const tensorsDir = opts.saveTensors ? await prepareTensorsDir(opts.out, metadata) : null;
  // Without --class: null, the predicted class, which the graph resolves in the same run.
  const classIds = await userStep(() => [...new Set(classSpecs.map((s) => resolveClass(metadata, s, '--class')))]);
  if (!classIds.length) classIds.push(null);
  const contrastId = opts.contrast === undefined ? undefined : await userStep(() => resolveClass(metadata, opts.contrast, '--contrast'));
  if (contrastId !== undefined && classIds.includes(contrastId)) {
    throw new UsageError(`--contrast ${opts.contrast} is also a --class: a class cannot be explained rather than itself`);
  }
  const wanted = classIds.map((id) => (contrastId === undefined ? id : { class: id, contrast: contrastId }));
  const core = await loadCore();
  if (!core.cropModeIds.includes(opts.crop)) throw new UsageError(`--crop must be ${core.cropModeIds.join(' or ')}, got "${opts.crop}"`);
  if (opts.crop !== 'center' && isNpyPath(inputFile)) throw new UsageError(`--crop ${opts.crop} applies to photos; ${inputFile} is already the model's input`);
  const parsed = parseMethods(opts.method, core.methodIds);
  // 'all': what one run of this model's explainer graph feeds; attattr (the attribution
  // graphs) only when named
  const methods = parsed === 'all' ? graphMethodIds(core, metadata) : parsed;
  if (!core.colormapIds.includes(opts.colormap)) {
    throw new UsageError(`unknown colormap "${opts.colormap}"; known: ${core.colormapIds.join(', ')}`);
  }
  // attattr reads Attr from the attribution graphs, the other methods the explainer's run
  const attributionMethods = attributionMethodsOf(core, methods);
  const explainerMethods = methods.filter((m) => core.explainerMethodIds.includes(m));
  await userStep(() => checkBlocksFor(core, metadata, methods));
  // A graph exported before a method's optional output (attnlrp, cp_lrp): said before loading it.
  const lacking = explainerMethods.filter((m) => !graphMethodIds(core, metadata).includes(m));
  if (lacking.length) {
    throw new UserError(`${path.basename(opts.model)} cannot compute ${lacking.join(', ')}: an export older than `
      + `${lacking.length > 1 ? 'these methods' : 'this method'} lacks ${core.outputsFor(lacking).join(', ')} (re-export it: npm run build)`);
  }
  if (attributionMethods.length) await userStep(() => checkAttributionFiles(opts.model, metadata.architecture.blocks));
  await prepareOutDir(opts.out, classIds.filter((id) => id !== null).flatMap((id) => methods.map((m) => overlayName(metadata.labels, id, m, contrastId))));
  // The photo is read and preprocessed for this model before its graph loads (a wrong
  // input fails in seconds); open() then takes it as it is.
  let t0 = performance.now();
  const prepared = await userStep(async () => preparePhoto(await decodePhoto(inputFile, { exif: opts.exif }), metadata, core, { crop: opts.crop }));
  timings.preprocessMs = ms(t0);

  t0 = performance.now();
  const explainer = await userStep(() => loadExplainer({ model, threads: opts.threads, engine: opts.engine }));
  timings.loadMs = ms(t0);
  let input;
  try {
    input = await userStep(() => explainer.open(prepared));
    // A null class: the predicted class, explained in the run that predicts it. With attattr
    // alone the run still gives the top-5 and the predicted class (raw_attention, the
    // cheapest map, stands in and is dropped).
    const runMethods = explainerMethods.length ? explainerMethods : ['raw_attention'];
    const out = await userStep(() => input.explain({ targets: wanted, methods: runMethods, startLayer: opts.startLayer }));
    if (!explainerMethods.length) for (const t of out.targets) t.maps = {};
    timings.modelMs = Math.round(out.timings.modelMs * 10) / 10;
    const { top5, targets } = out;
    printTop5(top5, inputFile);
    if (contrastId !== undefined) {
      for (const m of explainerMethods.filter((id) => !core.method(id).contrast)) {
        console.error(`note: ${m} left out: it reads only the attention, the same for every class, so it cannot contrast (docs/contrast.md)`);
      }
    }
    timings.relevanceMs = Math.round(out.timings.relevanceMs * 10) / 10;
    if (attributionMethods.length) {
      t0 = performance.now();
      await addAttributionMaps(core, opts, metadata, input.pixels, targets, attributionMethods);
      timings.attributionMs = ms(t0);
    }

    // The predicted class is known only now: its overlays' names are checked here.
    await prepareOutDir(opts.out, targets.flatMap((t) => Object.keys(t.maps).map((m) => overlayName(metadata.labels, t.id, m, t.contrast?.id))));
    t0 = performance.now();
    const pngs = await writeOverlays(core, opts.out, input, targets, metadata.labels, { colormap: opts.colormap, scale: opts.scale, opacity });
    timings.overlayMs = ms(t0);
    timings.totalMs = ms(started);

    // Nothing run-dependent goes into maps.json, so two runs write the same bytes;
    // the timings go to their own file when asked for.
    const doc = mapsDocument(targets.map(mapsTarget), {
      model: metadata.name,
      input: path.basename(inputFile),
      image: { width: input.width, height: input.height, region: input.region, source: input.source, exif: input.exif, crop: input.crop },
      startLayer: opts.startLayer,
      top5,
    });
    const file = await writeMapsJson(opts.out, doc);
    if (tensorsDir) {
      await userStep(() => saveModelTensors({ model: opts.model, metadata, pixels: input.pixels, dir: tensorsDir, engine: opts.engine, threads: opts.threads }));
      console.log(`wrote the logits and ${metadata.architecture.blocks} blocks' attention to ${tensorsDir}`);
    }
    if (opts.timings) await writeFile(path.join(opts.out, TIMINGS_FILE), `${JSON.stringify(timings, null, 2)}\n`);
    const named = (c) => `${c.id} (${c.label}: ${standingText(c)})`;
    for (const t of targets) {
      console.log(`explained ${named(t)}${t.contrast ? ` rather than ${named(t.contrast)}` : ''}: ${Object.keys(t.maps).join(', ')}`);
      const note = unlikelyNote(t.label, t);
      if (note) console.error(`note: ${note}`);
      for (const [m, map] of Object.entries(t.maps)) {
        const near = nearEqualNote(map.correlation);
        if (near) console.error(`note: ${m}: ${near} (docs/contrast.md)`);
      }
    }
    console.log(`wrote ${file} and ${pngs.length} overlay PNG(s) in ${opts.out} (graph ${timings.modelMs} ms, maps ${timings.relevanceMs} ms)`);
    return 0;
  } finally {
    input?.close();
    await explainer.close();
  }
}

// The maps that read Attr (attattr) for each explained class, added to that class's maps.
async function addAttributionMaps(core, opts, metadata, pixels, targets, methods) {
  const attribution = await userStep(() => openAttributionFiles(opts.model, metadata, { threads: opts.threads }));
  try {
    // Each explained class, and the second class of each contrast (docs/contrast.md).
    const maps = await userStep(() => targetAttributionMaps({ attribution, core, metadata, pixels, targets, methods, startLayer: opts.startLayer }));
    targets.forEach((target, i) => Object.assign(target.maps, maps[i]));
  } finally {
    await attribution.release();
  }
}
