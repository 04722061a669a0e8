// `vit-relevance attribute`: Self-Attention Attribution (Hao et al., AAAI 2021; METHODS.md)
// of a photo or .npy tensor: Attr[b] per block from the attribution graphs run by
// onnxruntime-web, then with the WebAssembly core the per-head importance, the
// attribution tree and the attattr map. Writes DIR/attribution.json, tree.png (the tree
// over the photo), heads.png (the head-importance grid), attattr.png (the map) and, with
// --save-tensors, attr-block<b>.npy [h,S,S].
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { parseOptions, formatOptions, splitPositionals, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';
import { loadCore } from '../../runtime/core.js';
import { parseBlocks, probabilityOf } from '../../runtime/attribution.js';
import { headGridSvg, headGridWidth, legendColour, treeSvg } from '../../runtime/attribution-svg.js';
import { scaleEnds, scaleWords } from '../../runtime/map-scale.js';
import { checkAttributionFiles, openAttributionFiles } from '../../runtime/node/open-attribution.js';
import { explainerGraphFile, metadataPathFor, readMetadata } from '../../runtime/node/open-explainer.js';
import { decodePhoto, preparePhoto } from '../../runtime/node/photo-input.js';
import { writeNpyFile } from '../../runtime/node/npy-file.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { encodePng, writeCaptionedPng } from '../../runtime/node/png.js';
import { tokenLayout, validateMetadata } from '../../runtime/metadata.js';
import { resolveClass } from '../../runtime/targets.js';
import { topK } from '../../runtime/topk.js';
import { kindMismatch } from '../../runtime/text-metadata.js';
import { runTextAttribution } from './attribute-text.js';

const OPTIONS = {
  model: { type: 'string', value: 'GRAPH.onnx', help: 'explainer graph; its metadata and attribution graphs (GRAPH.states.onnx, GRAPH.attr<b>.onnx and their weights, GRAPH.attribution.bin or the file index.json names) beside it; required for a photo; for a text, default build/models/bert-mini-sst2-movies' },
  text: { type: 'string', value: 'TEXT', help: 'a text to attribute with a text model (instead of a photo): DIR/attribution.json, heads.svg, tree.svg' },
  class: { type: 'string', value: 'ID|NAME', oldName: 'target', help: 'class to attribute, by id or name (default: the predicted class)' },
  blocks: { type: 'string', value: 'all|i,j,...', default: 'all', help: 'blocks to attribute (the tree and the map need all)' },
  steps: { type: 'int', min: 1, max: 10000, default: 20, help: 'm, the Riemann steps α_i = i/m' },
  'start-layer': { type: 'int', min: 0, default: 0, help: 'first block of the attattr rollout' },
  'save-tensors': { type: 'boolean', help: 'also write attr-block<b>.npy [h,S,S]' },
  threads: { type: 'int', min: 1, max: 64, help: 'ONNX Runtime threads (default: its own choice)' },
  colormap: { type: 'string', default: 'jet', help: 'colours of the map, the grid and the tree blocks' },
  out: { type: 'string', value: 'DIR', required: true, help: 'output folder' },
};

const JSON_FILE = 'attribution.json';
const PNG_FILES = ['heads.png', 'tree.png', 'attattr.png'];
const tensorFile = (block) => `attr-block${block}.npy`;

export const summary = 'Self-Attention Attribution of a photo or text: head importance, attribution tree, attattr map';

export function usage() {
  return `usage: vit-relevance attribute <image|tensor.npy> --model GRAPH.onnx [--class ID|NAME]
                               [--blocks all|i,j,...] [--steps 20] [--start-layer N]
                               [--save-tensors] [--threads N] [--colormap jet] --out DIR
       vit-relevance attribute --text "…" [--model DIR] [--class NAME|ID] [--blocks all|i,j,...]
                               [--steps 20] [--start-layer N] --out DIR

Attr[b] = (A[b]/m) ⊙ Σ_i ∂p_t(α_i A[b])/∂(α_i A[b]), α_i = i/m (METHODS.md), for each block:
the forward below the block runs once, the m scaled copies in batches. Writes
DIR/attribution.json (per block: head importance, completeness Σ Attr vs p_t(A) − p_t(0);
the attribution tree; the attattr map), DIR/tree.png, DIR/heads.png, DIR/attattr.png and,
with --save-tensors, DIR/attr-block<b>.npy. Progress goes to stderr. A text (--text, on a
text model) gets DIR/attribution.json (its tokens, the tree over them, the attattr map and
its word map), DIR/heads.svg and DIR/tree.svg (the tree as arcs over the tokens).

options:
${formatOptions(OPTIONS)}`;
}

const seconds = (ms) => `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;

// "block 3 (4/12) done, 41.2 s elapsed, ETA 2 min" on one stderr line.
function progress(done, total, block, startedMs) {
  const elapsed = performance.now() - startedMs;
  const eta = (elapsed / done) * (total - done);
  const line = `attribute: block ${block} (${done}/${total}) done, ${seconds(elapsed)} elapsed, ETA ${seconds(eta)}`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}${done === total ? '\n' : ''}` : `${line}\n`);
}

export async function run(argv) {
  const { positionals, rest } = splitPositionals(argv, OPTIONS);
  const opts = parseOptions(rest, OPTIONS, 'attribute');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  if (positionals.length !== 1 && opts.text === undefined) {
    throw new UsageError(positionals.length ? `one input expected, got ${positionals.join(' ')}` : 'give an image, a .npy tensor or --text to attribute');
  }
  if (opts.text !== undefined) return runTextAttribution(opts, positionals);
  if (opts.model === undefined) throw new UsageError('--model is required (see `vit-relevance attribute --help`)');
  const [inputFile] = positionals;

  // Everything cheap is checked before a graph opens.
  let metadata;
  try {
    opts.model = await explainerGraphFile(opts.model); // a model folder: its index's graph
    metadata = await readMetadata(metadataPathFor(opts.model), opts.model);
    validateMetadata(metadata, `metadata of ${path.basename(opts.model)}`);
  } catch (err) {
    throw new UserError(err.message);
  }
  const wrongKind = kindMismatch(metadata, 'image', path.basename(opts.model, '.onnx'));
  if (wrongKind) throw new UserError(wrongKind, { exitCode: 2 });
  const arch = metadata.architecture;
  const B = arch.blocks;
  let blocks;
  let classId = null;
  try {
    blocks = parseBlocks(opts.blocks, B);
    if (opts.class !== undefined) classId = resolveClass(metadata, opts.class, '--class');
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (opts.startLayer >= B) throw new UsageError(`--start-layer must be < ${B} (the model's blocks), got ${opts.startLayer}`);
  await prepareOutDir(opts.out, [JSON_FILE, ...PNG_FILES, ...(opts.saveTensors ? blocks.map(tensorFile) : [])]);
  try {
    checkAttributionFiles(opts.model, B);
  } catch (err) {
    throw new UserError(err.message);
  }
  const core = await loadCore();
  if (!core.colormapIds.includes(opts.colormap)) {
    throw new UsageError(`unknown colormap "${opts.colormap}"; known: ${core.colormapIds.join(', ')}`);
  }
  let input;
  try {
    input = preparePhoto(await decodePhoto(inputFile), metadata, core);
  } catch (err) {
    throw err instanceof UserError ? err : new UserError(err.message);
  }

  const attribution = await openAttributionFiles(opts.model, metadata, { threads: opts.threads });
  try {
    const started = performance.now();
    const { logits, hidden } = await attribution.hiddenStates(input.pixels);
    const top5 = topK(logits, 5, metadata.labels).map(({ id, label, prob }) => ({ id, label, prob }));
    if (classId === null) classId = top5[0].id;
    const pFull = probabilityOf(logits, classId);
    const { attr, results } = await attribution.attributeBlocks(hidden, blocks, classId, {
      steps: opts.steps, onBlock: (done, b) => progress(done, blocks.length, b, started),
    });
    const elapsedMs = performance.now() - started;
    return await writeResults(core, {
      opts, metadata, input, inputFile, classId, top5, pFull, attr, results, blocks, elapsedMs,
    });
  } finally {
    await attribution.release();
  }
}

async function writeResults(core, { opts, metadata, input, inputFile, classId, top5, pFull, attr, results, blocks, elapsedMs }) {
  const arch = metadata.architecture;
  const { heads: h, tokens: S } = arch;
  const layout = tokenLayout(metadata);
  const { grid, specialTokens } = layout;
  const importance = core.headImportance(attr).data;
  const all = blocks.length === arch.blocks;
  const tree = all ? core.attributionTree(attr, undefined, specialTokens) : null;
  const map = all
    ? core.computeMaps({ attr }, { methods: ['attattr'], ...layout, startLayer: opts.startLayer }).attattr
    : null;

  const written = [];
  const legend = core.legend(opts.colormap);
  const colour = legendColour(core, opts.colormap);

  // Each picture has a band under it: what it shows, and its colour scale's ends.
  const label = metadata.labels[classId];
  const [lo, hi] = [Math.min(...importance), Math.max(...importance)];
  const heads = path.join(opts.out, 'heads.png');
  await writeCaptionedPng(heads, await sharp(Buffer.from(headGridSvg(importance, { blocks, heads: h, colour }))).png().toBuffer(),
    headGridWidth(h), { text: `Head importance for ${label}: max over (i, j) of Attr`, legend, low: lo.toPrecision(3), high: hi.toPrecision(3) });
  written.push(heads);
  let skipped = [];
  if (tree) {
    const { width, height, rgba } = input;
    const colours = Array.from({ length: arch.blocks }, (_, b) => colour(arch.blocks > 1 ? b / (arch.blocks - 1) : 0));
    const drawing = treeSvg(tree, { width, height, region: input.region, grid, specialTokens, colours });
    skipped = drawing.skipped;
    const file = path.join(opts.out, 'tree.png');
    const drawn = await sharp(await encodePng(rgba, width, height)).composite([{ input: Buffer.from(drawing.svg) }]).png().toBuffer();
    await writeCaptionedPng(file, drawn, width, {
      text: `Attribution tree for ${label}: arrows from the patch that informs to the one informed, coloured by block`,
      legend, low: 'block 0', high: `block ${arch.blocks - 1}`,
    });
    written.push(file);
  }
  if (map) {
    const file = path.join(opts.out, 'attattr.png');
    const rgba = core.overlayOnPhoto(input.rgba, input.width, input.height,
      core.scaled(map, 'positive'), map.shape[0], map.shape[1], input.region, { colormap: opts.colormap, opacity: 0.5 });
    const [low, high] = scaleEnds(core, map, 'positive');
    await writeCaptionedPng(file, { rgba, height: input.height }, input.width, {
      text: `${label} · ${core.method('attattr').name} · ${scaleWords(core, map, 'positive')}`, legend, low, high,
    });
    written.push(file);
  }
  if (opts.saveTensors) {
    for (const r of results) {
      const file = path.join(opts.out, tensorFile(r.block));
      await writeNpyFile(file, { data: r.attr, shape: [h, S, S] });
      written.push(file);
    }
  }

  const doc = {
    format: 'vit-relevance-attribution',
    model: metadata.name,
    input: path.basename(inputFile),
    image: { width: input.width, height: input.height, region: input.region },
    target: { id: classId, label: metadata.labels[classId], prob: pFull },
    top5,
    steps: opts.steps,
    startLayer: opts.startLayer,
    blocks: results.map((r, row) => {
      const sum = r.attr.reduce((a, v) => a + v, 0);
      return {
        block: r.block,
        headImportance: Array.from(importance.subarray(row * h, (row + 1) * h)),
        completeness: { sumAttr: sum, probFull: pFull, probZero: r.probs[0], gap: pFull - r.probs[0] },
      };
    }),
    tree: tree && { threshold: 0.4, ...tree, notDrawn: skipped },
    attattr: map && { shape: map.shape, data: Array.from(map.data) },
    timings: { attributionMs: Math.round(elapsedMs) },
  };
  if (!all) doc.note = 'the tree and the attattr map need every block (--blocks all)';
  const json = path.join(opts.out, JSON_FILE);
  await writeFile(json, `${JSON.stringify(doc, null, 1)}\n`);
  console.log(`attributed class ${classId} (${metadata.labels[classId]}) over ${blocks.length} block(s), m = ${opts.steps}, in ${seconds(elapsedMs)}`);
  console.log(`wrote ${json} and ${written.length} more file(s) in ${opts.out}`);
  return 0;
}
