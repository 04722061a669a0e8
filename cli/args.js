// Argument parsing shared by every `vit-relevance` subcommand, and UsageError: a wrong
// command line (runtime/errors.js UserError with exit code 2).
//
// A command describes its options once:
//   const OPTIONS = {
//     attn:          { type: 'string', value: 'A.npy', help: 'attention [B,h,S,S]' },
//     'start-layer': { type: 'int', min: 0, default: 0, help: 'first block of the rollouts' },
//     grid:          { type: 'grid', help: 'patch grid, e.g. 14x14' },
//     out:           { type: 'string', value: 'DIR', required: true, help: 'output folder' },
//   };
//   const opts = parseOptions(argv, OPTIONS, 'maps');   // → { attn, startLayer, grid, out, help }
//   formatOptions(OPTIONS) gives the option lines of the command's --help.
// Types: 'string', 'int' (with optional min/max), 'grid' (RxC → [rows, cols]), 'boolean'.
// `oldName: 'target'` keeps a renamed option's old name working (docs/glossary.md); errors
// and --help name the new one.
// --help/-h is always accepted and reported as opts.help.
import { parseArgs } from 'node:util';
import { parseGrid } from '../runtime/token-grid.js';
import { UserError } from '../runtime/errors.js';

// Wrong command line (unknown option, missing value...): exit code 2, like most tools.
export class UsageError extends UserError {
  constructor(message) {
    super(message, { exitCode: 2 });
    this.name = 'UsageError';
  }
}

const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

function convert(name, spec, raw) {
  switch (spec.type) {
    case 'int': {
      if (!/^[+-]?\d+$/.test(raw)) throw new UsageError(`--${name} must be an integer, got "${raw}"`);
      const v = Number(raw);
      if (spec.min !== undefined && v < spec.min) throw new UsageError(`--${name} must be >= ${spec.min}, got ${v}`);
      if (spec.max !== undefined && v > spec.max) throw new UsageError(`--${name} must be <= ${spec.max}, got ${v}`);
      return v;
    }
    case 'grid': {
      const grid = parseGrid(raw);
      if (!grid) throw new UsageError(`--${name} must look like ROWSxCOLS (e.g. 14x14), got "${raw}"`);
      return grid;
    }
    case 'string':
      if (raw === '') throw new UsageError(`--${name} needs a non-empty value`);
      return raw;
    default:
      return raw;
  }
}

// "--start-layer -1" is a value, not an option: joined into "--start-layer=-1" so the
// option's range check answers, not parseArgs' "argument is ambiguous".
function joinNegativeValues(argv, options) {
  const args = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const takesValue = a.startsWith('--') && options[a.slice(2)]?.type === 'string';
    if (takesValue && /^-\d/.test(argv[i + 1] ?? '')) args.push(`${a}=${argv[++i]}`);
    else args.push(a);
  }
  return args;
}

// parseOptions takes no positionals: split them off first. An option's value (the next
// word, for an option that is not boolean and not written --name=value) stays with it.
// The spec an option name (its own or its old one) stands for.
export const specByName = (specs, name) => specs[name] ?? Object.values(specs).find((s) => s.oldName === name);

export function splitPositionals(argv, specs) {
  const positionals = [];
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('-') && a !== '-') {
      rest.push(a);
      const spec = specByName(specs, a.replace(/^--?/, ''));
      if (spec && spec.type !== 'boolean' && !a.includes('=') && i + 1 < argv.length) rest.push(argv[++i]);
    } else {
      positionals.push(a);
    }
  }
  return { positionals, rest };
}

export function parseOptions(argv, specs, command) {
  const options = { help: { type: 'boolean', short: 'h' } };
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = { type: spec.type === 'boolean' ? 'boolean' : 'string' };
    if (spec.short) options[name].short = spec.short;
    if (spec.oldName) options[spec.oldName] = { type: options[name].type };
  }
  const args = joinNegativeValues(argv, options);
  let parsed;
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (err) {
    // util.parseArgs messages are clear but mention internals; keep their first sentence.
    throw new UsageError(`${err.message.split('. ')[0].replace(/\.$/, '')} (see \`vit-relevance ${command} --help\`)`);
  }
  const out = { help: Boolean(parsed.values.help) };
  for (const [name, spec] of Object.entries(specs)) {
    const given = [parsed.values[name], spec.oldName && parsed.values[spec.oldName]].filter((v) => v !== undefined);
    if (given.length > 1) throw new UsageError(`--${name} is given twice (--${spec.oldName} is its old name)`);
    const raw = given[0];
    if (raw === undefined) {
      if (spec.required && !out.help) throw new UsageError(`--${name} is required (see \`vit-relevance ${command} --help\`)`);
      out[camel(name)] = spec.default;
    } else {
      out[camel(name)] = spec.type === 'boolean' ? raw : convert(name, spec, raw);
    }
  }
  return out;
}

export function formatOptions(specs) {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const value = spec.type === 'boolean' ? '' : ` ${spec.value ?? (spec.type === 'int' ? 'N' : spec.type === 'grid' ? 'RxC' : 'VALUE')}`;
    const extra = (spec.required ? ' (required)' : spec.default !== undefined ? ` (default ${spec.default})` : '')
      + (spec.oldName ? `; old name --${spec.oldName}` : '');
    return [`  --${name}${value}`, `${spec.help ?? ''}${extra}`];
  });
  const width = Math.max(...rows.map(([l]) => l.length)) + 2;
  return rows.map(([l, r]) => l.padEnd(width) + r).join('\n');
}

// The methods section of a command's --help, from the core's registry
// (src/methods/registry.h). source(tensorId) names where a tensor comes from (default: its id).
export function formatMethods(core, source = (id) => id) {
  const width = Math.max(...core.methodIds.map((id) => id.length)) + 4;
  return core.methods.map((m) => [
    `  ${m.id.padEnd(width - 2)}${m.name}${m.startLayer ? ' (uses --start-layer)' : ''}`,
    `  ${''.padEnd(width - 2)}${m.description}; reads ${m.tensors.map(source).join(' ')}`,
  ].join('\n')).join('\n');
}

// --method: "all" (returned as 'all') or method ids separated by commas, each checked
// against `known`; duplicates dropped.
export function parseMethods(text, known) {
  if (text === 'all') return 'all';
  const ids = text.split(',').map((s) => s.trim()).filter(Boolean);
  if (!ids.length) throw new UsageError('--method needs "all" or method ids separated by commas');
  for (const id of ids) {
    if (!known.includes(id)) throw new UsageError(`unknown method "${id}"; known: all, ${known.join(', ')}`);
  }
  return [...new Set(ids)];
}
