// `vit-relevance maps`: relevance maps from tensors saved as .npy files (e.g. by the
// exporter or the reference code), computed by the WebAssembly core the page runs, and
// written to DIR/maps.json.
import { parseOptions, parseMethods, formatOptions, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';
import { loadCore } from '../../runtime/core.js';
import { mapsDocument, mapsTarget } from '../../runtime/maps-json.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';
import { writeMapsJson } from '../../runtime/node/maps-file.js';
import { inferSquareGrid } from '../../runtime/token-grid.js';

// Option → core tensor key and the name the C++ core uses for it in messages.
const TENSOR_OPTIONS = [
  { option: 'attn', key: 'attn', cppName: 'attention', help: 'attention A [B,h,S,S]' },
  { option: 'grad', key: 'attnGrad', cppName: 'attention_grad', help: 'attention gradient G [B,h,S,S]' },
  { option: 'rel', key: 'attnRel', cppName: 'attention_rel', help: 'LRP relevance at A, proposed rules [B,h,S,S]' },
  { option: 'rel-classic-last', key: 'relClassicLast', cppName: 'rel_classic_last', help: 'last block LRP relevance, classic rules [h,S,S]' },
  { option: 'input-rel-classic', key: 'inputRelClassic', cppName: 'input_rel_classic', help: 'classic LRP relevance at the pixels [H,W]' },
  { option: 'attr', key: 'attr', cppName: 'attribution', help: 'Self-Attention Attribution Attr [B,h,S,S] (vit-relevance attribute)' },
];

const OPTIONS = {
  ...Object.fromEntries(TENSOR_OPTIONS.map((t) => [t.option, { type: 'string', value: 'FILE.npy', help: t.help }])),
  method: { type: 'string', value: 'IDS', default: 'all', help: 'all, or method ids separated by commas' },
  'start-layer': { type: 'int', min: 0, default: 0, help: 'first block of the three rollouts (the paper evaluates with 1)' },
  grid: { type: 'grid', help: 'patch grid; default: square, from S and --special-tokens' },
  'special-tokens': { type: 'int', min: 0, default: 1, help: 'leading non-patch tokens (CLS, distillation)' },
  out: { type: 'string', value: 'DIR', required: true, help: 'folder for maps.json' },
};

export const summary = 'relevance maps from .npy tensors → DIR/maps.json';

export function usage() {
  return `usage: vit-relevance maps [--attn A.npy] [--grad G.npy] [--rel R.npy]
                          [--rel-classic-last Rc.npy] [--input-rel-classic X.npy]
                          [--method all|ID,ID...] [--start-layer N] [--grid RxC]
                          [--attr Attr.npy] [--special-tokens N] --out DIR

Computes relevance maps with the WebAssembly core (the same code the page runs) and writes
DIR/maps.json: { "targets": [ { "id": null, "maps": { "<method>": { "shape", "data" } } } ] }.
With --method all, methods whose inputs were not given are left out.

options:
${formatOptions(OPTIONS)}

methods and their inputs:
  transformer_attribution, ablation_last_block, ablation_second_block   --grad --rel
  attention_rollout, raw_attention                                      --attn
  gradcam, generic_attention                                            --attn --grad
  ablation_no_grad                                                      --rel
  partial_lrp                                                           --rel-classic-last
  lrp_full                                                              --input-rel-classic
  attattr                                                               --attr`;
}

// Which flag a C++ message is about, so users know which file to look at.
function withFileHint(message, given) {
  const hints = TENSOR_OPTIONS
    .filter((t) => new RegExp(`\\b${t.cppName}\\b`).test(message))
    .map((t) => (given[t.key] ? `${t.cppName} is --${t.option} ${given[t.key]}` : `${t.cppName} comes from --${t.option}`));
  return hints.length ? `${message} (${hints.join('; ')})` : message;
}

function chooseGrid(opts, tensors) {
  if (opts.grid) return opts.grid;
  const first = ['attn', 'attnGrad', 'attnRel', 'relClassicLast', 'attr'].map((k) => tensors[k]).find(Boolean);
  if (!first) return undefined; // lrp_full only: no token grid involved
  const S = first.shape[first.shape.length - 1];
  const grid = inferSquareGrid(S, opts.specialTokens);
  if (!grid) {
    throw new UsageError(`cannot infer the patch grid: ${S} tokens minus ${opts.specialTokens} special ` +
      'token(s) is not a square number; pass --grid RxC (and --special-tokens N)');
  }
  return grid;
}

export async function run(argv) {
  const opts = parseOptions(argv, OPTIONS, 'maps');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  const given = {};
  for (const t of TENSOR_OPTIONS) {
    const file = opts[camelOption(t.option)];
    if (file) given[t.key] = file;
  }
  if (!Object.keys(given).length) {
    throw new UsageError(`give at least one input tensor (${TENSOR_OPTIONS.map((t) => `--${t.option}`).join(', ')})`);
  }

  const core = await loadCore();
  const methods = parseMethods(opts.method, core.methodIds);
  const tensors = {};
  for (const [key, file] of Object.entries(given)) {
    if (!/\.npy$/i.test(file)) throw new UserError(`${file}: expected a NumPy .npy file`);
    tensors[key] = await readNpyFile(file);
  }

  let maps;
  try {
    maps = core.computeMaps(tensors, {
      methods,
      grid: chooseGrid(opts, tensors),
      specialTokens: opts.specialTokens,
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
