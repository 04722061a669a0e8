// @ts-check
// Checks an explainer graph's metadata JSON (docs/architecture.md, "Metadata JSON") and
// the ONNX session's input/output names against the graph contract, so a wrong or stale
// file fails at load time with a message naming what is missing, not deep inside a run.
// Environment-neutral: used by the CLI (Node) and the page's Worker. A text model's own
// fields are checked in text-metadata.js, which validateImageMetadata (the photo path's)
// leaves out.
import { MODEL_KINDS, modelKind, kindMismatch } from './model-kind.js';
import { textMetadataProblems } from './text-metadata.js';

export const METADATA_FORMAT = 'vit-relevance-explainer';
export const SUPPORTED_FORMAT_VERSIONS = [1];

export const CONTRACT_INPUTS = ['pixels', 'target', 'pixel_relevance'];
export const CONTRACT_OUTPUTS = [
  'logits', 'attn', 'attn_grad', 'attn_rel', 'attn_rel_classic_last', 'input_rel_classic',
];

// Outputs a graph may lack (an export older than them), each with the scalar input that
// switches it on (1 = compute, 0 = skip at no cost) and the method that reads it
// (docs/architecture.md, "The explainer graph contract").
export const OPTIONAL_OUTPUTS = Object.freeze({
  input_rel_attnlrp: { input: 'attnlrp_relevance', method: 'attnlrp' },
  input_rel_cp_lrp: { input: 'cp_lrp_relevance', method: 'cp_lrp' },
});

// The outputs a graph with this (validated) metadata has: the contract's, then the
// optional ones its metadata declares.
export function graphOutputs(metadata) {
  return [...CONTRACT_OUTPUTS, ...Object.keys(OPTIONAL_OUTPUTS).filter((o) => o in (metadata.outputs ?? {}))];
}

// The methods one run of this graph feeds ('all' for it): core.explainerMethodIds but those
// reading an optional output the graph lacks, or defined for more blocks than the model has
// (ablation_second_block on a 1-block model: the registry's min_blocks).
export function graphMethodIds(core, metadata) {
  const outputs = graphOutputs(metadata);
  const blocks = metadata.architecture?.blocks ?? Infinity;
  return core.explainerMethodIds.filter((m) => core.method(m).minBlocks <= blocks
    && core.outputsFor([m]).every((o) => outputs.includes(o)));
}

// Methods named for a model with fewer blocks than they are defined for: an Error naming
// the first (ablation_second_block on a 1-block model), before any work.
export function checkBlocksFor(core, metadata, methods) {
  const blocks = metadata.architecture.blocks;
  const deeper = methods.find((m) => core.method(m).minBlocks > blocks);
  if (deeper) throw new Error(`${deeper}: needs at least ${core.method(deeper).minBlocks} blocks, the model has ${blocks}`);
  return methods;
}

const ARCHITECTURE_FIELDS = [
  'blocks', 'heads', 'patch_size', 'image_size', 'grid', 'tokens', 'num_classes',
];

// How the head reads the tokens (architecture.pool): the core's Pool ids (core.poolIds,
// src/methods/relevance.h; tests/node/metadata.test.js keeps the two lists equal).
export const POOL_IDS = ['cls', 'cls+dist', 'avg', 'avg+prefix', 'cls+avg'];

function isPositiveInt(v) {
  return Number.isInteger(v) && v > 0;
}

function isNumberList(v, length) {
  return Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'number' && Number.isFinite(x));
}

// An image model's architecture and preprocessing (its patch grid, tokens and pool).
function imageMetadataProblems(metadata) {
  const problems = [];
  const arch = metadata.architecture;
  if (!arch || typeof arch !== 'object') {
    problems.push('"architecture" is missing');
  } else {
    for (const f of ARCHITECTURE_FIELDS) {
      if (arch[f] === undefined) problems.push(`"architecture.${f}" is missing`);
    }
    for (const f of ['blocks', 'heads', 'patch_size', 'tokens', 'num_classes']) {
      if (arch[f] !== undefined && !isPositiveInt(arch[f])) problems.push(`"architecture.${f}" must be a positive integer`);
    }
    for (const f of ['image_size', 'grid']) {
      if (arch[f] !== undefined && !(Array.isArray(arch[f]) && arch[f].length === 2 && arch[f].every(isPositiveInt))) {
        problems.push(`"architecture.${f}" must be [rows, cols] of positive integers`);
      }
    }
    for (const f of ['special_tokens', 'registers']) {
      if (arch[f] !== undefined && !(Number.isInteger(arch[f]) && arch[f] >= 0)) {
        problems.push(`"architecture.${f}" must be a non-negative integer`);
      }
    }
    for (const f of ['cls_token', 'dist_token', 'distilled']) {
      if (arch[f] !== undefined && typeof arch[f] !== 'boolean') problems.push(`"architecture.${f}" must be true or false`);
    }
    if (arch.pool !== undefined && !POOL_IDS.includes(arch.pool)) {
      problems.push(`"architecture.pool" ${JSON.stringify(arch.pool)} is not one of ${POOL_IDS.join(', ')}`);
    }
    if (problems.length === 0) {
      const special = specialTokens(arch);
      const patches = arch.image_size.map((n) => n / arch.patch_size);
      if (patches.some((n) => !Number.isInteger(n)) || patches.some((n, i) => n !== arch.grid[i])) {
        problems.push(`"architecture.grid" ${JSON.stringify(arch.grid)} does not match image_size ${arch.image_size.join('×')} / patch_size ${arch.patch_size}`
          + (patches.every(Number.isInteger) ? ` = ${JSON.stringify(patches)}` : ' (not a whole number of patches)'));
      } else if (arch.grid[0] * arch.grid[1] + special !== arch.tokens) {
        problems.push(`"architecture.tokens" ${arch.tokens} != grid ${arch.grid.join('×')} + ${special} special token(s)`);
      } else {
        problems.push(...prefixProblems(arch));
      }
    }
  }

  const pre = metadata.preprocess;
  if (!pre || typeof pre !== 'object') {
    problems.push('"preprocess" is missing');
  } else {
    if (!isNumberList(pre.mean, 3)) problems.push('"preprocess.mean" must be 3 numbers');
    if (!isNumberList(pre.std, 3) || (Array.isArray(pre.std) && pre.std.some((s) => !(s > 0)))) {
      problems.push('"preprocess.std" must be 3 positive numbers');
    }
  }
  return problems;
}

// Throws one Error listing every problem found; returns the metadata unchanged.
export function validateMetadata(metadata, source = 'metadata') {
  return checkMetadata(metadata, source, (m) => (modelKind(m) === 'text' ? textMetadataProblems(m) : imageMetadataProblems(m)));
}

// validateMetadata for the photo explainer (runtime/explainer.js): a text model's metadata
// is refused in one line, as the kind it is, so the photo path ships without the text checks.
export function validateImageMetadata(metadata, source = 'metadata') {
  return checkMetadata(metadata, source, (m) => (modelKind(m) === 'text' ? [kindMismatch(m, 'image')] : imageMetadataProblems(m)));
}

// kindProblems(metadata): the problems of its kind's own fields.
function checkMetadata(metadata, source, kindProblems) {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    throw new Error(`${source} is not an explainer metadata object`);
  }
  const problems = [];
  if (metadata.format !== METADATA_FORMAT) {
    problems.push(`"format" is ${JSON.stringify(metadata.format)}, expected "${METADATA_FORMAT}"`);
  }
  if (!SUPPORTED_FORMAT_VERSIONS.includes(metadata.format_version)) {
    problems.push(`"format_version" ${JSON.stringify(metadata.format_version)} is not supported `
      + `(this runtime reads ${SUPPORTED_FORMAT_VERSIONS.join(', ')})`);
  }
  if (typeof metadata.name !== 'string' || !metadata.name) problems.push('"name" is missing');
  if (!MODEL_KINDS.includes(modelKind(metadata))) problems.push(`"kind" ${JSON.stringify(metadata.kind)} is not one of ${MODEL_KINDS.join(', ')}`);
  else problems.push(...kindProblems(metadata));

  const classes = metadata.architecture?.num_classes;
  if (!Array.isArray(metadata.labels) || !metadata.labels.every((l) => typeof l === 'string')) {
    problems.push('"labels" must be an array of strings');
  } else if (isPositiveInt(classes) && metadata.labels.length !== classes) {
    problems.push(`"labels" has ${metadata.labels.length} entries, architecture.num_classes is ${classes}`);
  }
  if (metadata.label_names !== undefined) {
    if (!Array.isArray(metadata.label_names) || metadata.label_names.length !== metadata.labels?.length) {
      problems.push('"label_names" must be an array as long as "labels"');
    }
  }

  if (!metadata.outputs || typeof metadata.outputs !== 'object') {
    problems.push('"outputs" is missing');
  } else {
    const missing = CONTRACT_OUTPUTS.filter((o) => !(o in metadata.outputs));
    if (missing.length) problems.push(`"outputs" lacks ${missing.join(', ')}`);
  }

  if (problems.length) {
    throw new Error(`${source} is not valid explainer metadata: ${problems.join('; ')}`);
  }
  return metadata;
}

// The prefix tokens, in the checkpoint's order [cls, dist, registers…]: the flags where
// the file gives them (`explicit`), else what special_tokens and `distilled` imply (files
// from before the flags: a class token unless special_tokens says there is no room).
function prefixFlags(arch) {
  const explicit = ['cls_token', 'dist_token', 'registers'].some((f) => arch[f] !== undefined);
  const dist = arch.dist_token ?? arch.distilled ?? false;
  const registers = arch.registers ?? 0;
  const cls = arch.cls_token ?? (arch.special_tokens === undefined || arch.special_tokens > Number(dist) + registers);
  return { cls, dist, registers, explicit, count: Number(cls) + Number(dist) + registers };
}

function specialTokens(arch) {
  return arch.special_tokens ?? prefixFlags(arch).count;
}

// The token flags against special_tokens, and the pool against the tokens it reads.
function prefixProblems(arch) {
  const { cls, dist, registers, explicit, count } = prefixFlags(arch);
  const pool = arch.pool ?? 'cls';
  const problems = [];
  if (explicit && dist && !cls) problems.push('"architecture.dist_token" needs cls_token: the distillation token is token 1, after the class token');
  if (explicit && arch.special_tokens !== undefined && arch.special_tokens !== count) {
    problems.push(`"architecture.special_tokens" ${arch.special_tokens} != ${count}, the prefix tokens of cls_token ${cls}, dist_token ${dist}, registers ${registers}`);
  }
  if ((pool === 'cls' || pool === 'cls+avg' || pool === 'cls+dist') && !cls) {
    problems.push(`"architecture.pool" ${pool} reads the class token, but the model has none`);
  } else if (pool === 'cls+dist' && !dist) {
    problems.push('"architecture.pool" cls+dist reads the distillation token, but the model has none');
  }
  return problems;
}

// Which metadata field each fixed axis of the contract's tensors is (null: K, the number
// of targets, free). "tokens" covers the attention's two token axes.
const CONTRACT_AXES = {
  pixels: [null, null, 'image_size[0]', 'image_size[1]'],
  target: [null, 'num_classes'],
  logits: [null, 'num_classes'],
  attn: ['blocks', 'heads', 'tokens', 'tokens'],
  attn_grad: [null, 'blocks', 'heads', 'tokens', 'tokens'],
  attn_rel: [null, 'blocks', 'heads', 'tokens', 'tokens'],
  attn_rel_classic_last: [null, 'heads', 'tokens', 'tokens'],
  input_rel_attnlrp: [null, 'image_size[0]', 'image_size[1]'],
  input_rel_cp_lrp: [null, 'image_size[0]', 'image_size[1]'],
};

function fieldValue(arch, field) {
  const [, name, index] = /^(\w+)(?:\[(\d)\])?$/.exec(field);
  return index === undefined ? arch[name] : arch[name]?.[Number(index)];
}

// Metadata fields that disagree with the graph's own tensor shapes (only the axes the
// graph fixes to a number; onnxruntime gives names for symbolic ones).
function shapeMismatches(session, metadata) {
  const arch = metadata.architecture;
  const declared = [...(session.inputMetadata ?? []), ...(session.outputMetadata ?? [])];
  const found = new Map();
  for (const { name, shape } of declared) {
    const axes = CONTRACT_AXES[name];
    if (!axes || !Array.isArray(shape) || shape.length !== axes.length) continue;
    axes.forEach((field, i) => {
      if (field && typeof shape[i] === 'number' && shape[i] > 0 && !found.has(field)) found.set(field, { value: shape[i], name, shape });
    });
  }
  const problems = [];
  for (const [field, { value, name, shape }] of found) {
    const fileValue = fieldValue(arch, field);
    if (fileValue !== value) {
      problems.push(`architecture.${field} is ${JSON.stringify(fileValue)} in the metadata, ${value} in the graph (${name} [${shape.join(',')}])`);
    }
  }
  return problems;
}

// Compares an ONNX session's names with the contract and, given the metadata, the shapes
// the graph declares with the architecture it claims; `modelName` is used in messages.
export function checkSessionContract(session, modelName = 'model.onnx', metadata) {
  // The optional outputs the metadata declares must be there, with their switches.
  const declared = metadata ? Object.entries(OPTIONAL_OUTPUTS).filter(([o]) => o in (metadata.outputs ?? {})) : [];
  const missingIn = [...CONTRACT_INPUTS, ...declared.map(([, d]) => d.input)].filter((n) => !session.inputNames.includes(n));
  const missingOut = [...CONTRACT_OUTPUTS, ...declared.map(([o]) => o)].filter((n) => !session.outputNames.includes(n));
  const parts = [];
  if (missingIn.length) parts.push(`inputs ${missingIn.join(', ')}`);
  if (missingOut.length) parts.push(`outputs ${missingOut.join(', ')}`);
  if (parts.length) {
    throw new Error(`${modelName} lacks ${parts.join(' and ')} expected by the explainer contract `
      + `(it has inputs ${session.inputNames.join(', ') || 'none'}; outputs ${session.outputNames.join(', ') || 'none'})`);
  }
  if (metadata) checkSessionShapes(session, modelName, metadata);
}

// The metadata against the axes any graph of the model fixes (the photo graph's pixels,
// logits and attn, say): the architecture fields that disagree, or nothing.
export function checkSessionShapes(session, modelName, metadata) {
  const mismatches = shapeMismatches(session, metadata);
  if (mismatches.length) {
    throw new Error(`the metadata does not match ${modelName}: ${mismatches.join('; ')}`);
  }
}

// The token layout options of core.computeMaps / relevanceRow for this model:
// { grid, specialTokens, pool } (docs/layouts.md).
// A text model's: { kind: 'text' } (S tokens, [CLS] first; METHODS.md "Text (BERT)").
export function tokenLayout(metadata) {
  if (modelKind(metadata) === 'text') return { kind: 'text' };
  const a = metadata.architecture;
  return { grid: a.grid, specialTokens: specialTokens(a), pool: a.pool ?? 'cls' };
}

// core.computeMaps's options for `methods` of this model from `startLayer`.
export function mapOptions(metadata, methods, startLayer) {
  return { methods, ...tokenLayout(metadata), startLayer };
}

// The shapes the runtime needs, derived once from the metadata.
export function contractDims(metadata) {
  const a = metadata.architecture;
  const [H, W] = a.image_size;
  return {
    blocks: a.blocks, heads: a.heads, tokens: a.tokens, classes: a.num_classes,
    height: H, width: W, grid: a.grid, patch: a.patch_size,
  };
}
