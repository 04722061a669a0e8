// `vit-relevance maps`: relevance maps from tensors saved as .npy files (e.g. by the
// exporter or the reference code), computed by the WebAssembly core the page runs, and
// written to DIR/maps.json.
import { parseOptions, parseMethods, formatOptions, formatMethods, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';
import { loadCore } from '../../runtime/core.js';
import { mapsDocument, mapsTarget } from '../../runtime/maps-json.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';
import { writeMapsJson } from '../../runtime/node/maps-file.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { inferSquareGrid } from '../../runtime/token-grid.js';
import { TOKEN_TENSORS } from '../../runtime/core-tensors.js';

// CLI flag → tensor id (the graph's output name, core.tensorIds): the one place the
// flags are named. Shorter than the ids for the common three; everything else reads ids.
export const TENSOR_FLAGS = {
  attn: 'attn',
  grad: 'attn_grad',
  rel: 'attn_rel',
  'rel-classic-last': 'attn_rel_classic_last',
  'input-rel-classic': 'input_rel_classic',
  attr: 'attr',
  'input-rel-attnlrp': 'input_rel_attnlrp',
  'input-rel-cp-lrp': 'input_rel_cp_lrp',
};
const flagOf = Object.fromEntries(Object.entries(TENSOR_FLAGS).map(([flag, id]) => [id, flag]));

// The tensor flags' help is the core's description of each tensor.
const options = (core) => ({
  ...Object.fromEntries(Object.entries(TENSOR_FLAGS).map(([flag, id]) => [flag, {
    type: 'string', value: 'FILE.npy', help: `${id}, ${core.tensors.find((t) => t.id === id).description}`,
  }])),
  method: { type: 'string', value: 'IDS', default: 'all', help: 'all, or method ids separated by commas' },
  'start-layer': { type: 'int', min: 0, default: 0, help: 'first block of the rollouts (the paper evaluates with 1)' },
  grid: { type: 'grid', help: 'patch grid; default: square, from S and --special-tokens' },
  'special-tokens': { type: 'int', min: 0, default: 1, help: 'leading non-patch tokens (CLS, distillation, registers)' },
  pool: { type: 'string', value: 'ID', default: 'cls', help: `how the model's head reads the tokens: ${core.poolIds.join(', ')} (docs/layouts.md)` },
  out: { type: 'string', value: 'DIR', required: true, help: 'folder for maps.json' },
});

export const summary = 'relevance maps from .npy tensors → DIR/maps.json';

export function usage(core) {
  return `usage: vit-relevance maps [--attn A.npy] [--grad G.npy] [--rel R.npy]
                          [--rel-classic-last Rc.npy] [--input-rel-classic X.npy]
                          [--method all|ID,ID...] [--start-layer N] [--grid RxC]
                          [--special-tokens N] [--pool ID] --out DIR

Computes relevance maps with the WebAssembly core (the same code the page runs) and writes
DIR/maps.json: { "targets": [ { "id": null, "maps": { "<method>": { "shape", "data" } } } ] }.
With --method all, methods whose inputs were not given are left out.

options:
${formatOptions(options(core))}

methods:
${formatMethods(core, (id) => `--${flagOf[id]}`)}`;
}

// Which flag a core message is about (it names tensors by id), so users know which file
// to look at.
function withFileHint(message, given) {
  const hints = Object.entries(TENSOR_FLAGS)
    .filter(([, id]) => new RegExp(`\\b${id}\\b`).test(message))
    .map(([flag, id]) => (given[id] ? `${id} is --${flag} ${given[id]}` : `${id} comes from --${flag}`));
  return hints.length ? `${message} (${hints.join('; ')})` : message;
}

// The number of axes is checked here, before the grid is inferred from the last one (a
// scalar said "undefined tokens"). The axes are those of the core's tensor description.
function checkRank(core, id, tensor, file) {
  const axes = /\[([^\]]+)\]/.exec(core.tensors.find((t) => t.id === id).description)[1];
  const rank = axes.split(',').length;
  if (tensor.shape.length !== rank) {
    throw new UserError(`${file}: --${flagOf[id]} takes a ${rank}-axis [${axes}] tensor, this one has shape [${tensor.shape.join(',')}]`
      + (tensor.shape.length ? '' : ' (a scalar)'));
  }
  return tensor;
}

function chooseGrid(opts, tensors) {
  if (opts.grid) return opts.grid;
  const first = TOKEN_TENSORS.map((id) => tensors[id]).find(Boolean);
  if (!first) return undefined; // pixel maps only (lrp_full, attnlrp, cp_lrp): no token grid involved
  const S = first.shape[first.shape.length - 1];
  const grid = inferSquareGrid(S, opts.specialTokens);
  if (!grid) {
    throw new UsageError(`cannot infer the patch grid: ${S} tokens minus ${opts.specialTokens} special ` +
      'token(s) is not a square number; pass --grid RxC (and --special-tokens N)');
  }
  return grid;
}

export async function run(argv) {
  const core = await loadCore();
  const opts = parseOptions(argv, options(core), 'maps');
  if (opts.help) {
    console.log(usage(core));
    return 0;
  }
  const given = {};
  for (const [flag, id] of Object.entries(TENSOR_FLAGS)) {
    const file = opts[camelOption(flag)];
    if (file) given[id] = file;
  }
  if (!Object.keys(given).length) {
    throw new UsageError(`give at least one input tensor (${Object.keys(TENSOR_FLAGS).map((f) => `--${f}`).join(', ')})`);
  }

  await prepareOutDir(opts.out, ['maps.json']);
  const methods = parseMethods(opts.method, core.methodIds);
  const tensors = {};
  for (const [id, file] of Object.entries(given)) {
    if (!/\.npy$/i.test(file)) throw new UserError(`${file}: expected a NumPy .npy file`);
    tensors[id] = checkRank(core, id, await readNpyFile(file), file);
  }

  let maps;
  try {
    maps = core.computeMaps(tensors, {
      methods,
      grid: chooseGrid(opts, tensors),
      specialTokens: opts.specialTokens,
      pool: opts.pool,
      startLayer: opts.startLayer,
    });
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(withFileHint(err.message, given));
  }
  const file = await writeMapsJson(opts.out, mapsDocument([mapsTarget({ id: null, maps })]));
  console.log(`wrote ${file}: ${Object.keys(maps).join(', ')}`);
  return 0;
}

function camelOption(name) {
  return name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
}
