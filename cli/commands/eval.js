// `vit-relevance eval <evaluation> ...`: the paper's evaluations over a folder of photos.
// Each evaluation is cli/commands/eval-<name>.js ({ summary, usage(), run(argv) }); this
// file only dispatches, and its help lists the evaluations present in this installation.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { UsageError } from '../args.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SUBCOMMANDS = ['perturbation', 'pointing-game', 'segmentation', 'prune-heads', 'rationales', 'merge'];

const subcommandFile = (name) => path.join(here, `eval-${name}.js`);
const available = () => SUBCOMMANDS.filter((name) => existsSync(subcommandFile(name)));
const loadSubcommand = (name) => import(pathToFileURL(subcommandFile(name)).href);

export const summary = 'evaluate the explanations over a folder of photos (resumable, shardable)';

export function usage(summaries = {}) {
  const names = available();
  const list = names.length
    ? names.map((name) => `  ${name.padEnd(15)}${summaries[name] ?? ''}`.trimEnd()).join('\n')
    : '  (none in this installation)';
  return `usage: vit-relevance eval <evaluation> [options]

Runs one of the paper's evaluations over the photos of a folder (a text model's: over
ERASER's reviews or SST-2's sentences). Each run writes a folder:
run.json (the settings), records.jsonl (one line per photo, written as it finishes: rerun
the same command to resume an interrupted run), the summary <evaluation>.json and the
reports (Markdown, CSV, SVG). --shard i/n splits the items over several processes or
machines; \`eval merge\` combines their folders into what a single run would have written.

evaluations:
${list}

Run \`vit-relevance eval <evaluation> --help\` for its options.`;
}

async function help() {
  const summaries = {};
  for (const name of available()) summaries[name] = (await loadSubcommand(name)).summary;
  return usage(summaries);
}

export async function run(argv) {
  const [name, ...rest] = argv;
  if (!name || ['--help', '-h', 'help'].includes(name)) {
    if (name === 'help' && rest[0]) return run([rest[0], '--help']);
    console.log(await help());
    return name ? 0 : 2;
  }
  if (!available().includes(name)) {
    const known = available().join(', ') || 'none installed';
    throw new UsageError(`unknown evaluation "${name}"; available: ${known} (see \`vit-relevance eval --help\`)`);
  }
  const sub = await loadSubcommand(name);
  return (await sub.run(rest)) ?? 0;
}
