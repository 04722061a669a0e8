// `vit-relevance eval merge DIR... --out DIR`: combines the run folders of shards into
// the folder a single unsharded run would have written (same records, same summary and
// report bytes), refusing folders of other evaluations or settings.
import { parseOptions, formatOptions, UsageError } from '../args.js';
import { mergeRuns, readRuns } from '../../eval/node/merge.js';
import { loadKind } from '../../eval/node/kinds.js';
import { prepareOutDir } from '../../runtime/node/out-dir.js';
import { outFiles } from '../eval-options.js';

const OPTIONS = {
  out: { type: 'string', value: 'DIR', required: true, help: 'new folder for the merged run' },
};

export const summary = 'combine the run folders of --shard runs into one';

export function usage() {
  return `usage: vit-relevance eval merge RUN_DIR... --out DIR

Reads run.json and records.jsonl of each folder (typically the --out folders of
\`--shard 1/n\` … \`--shard n/n\` runs), checks they hold the same evaluation with the same
settings, and writes DIR/run.json, DIR/records.jsonl (sorted) and the summary and reports,
exactly as one unsharded run would have. A photo recorded in two folders must have the
same record in both. Merging only some of the shards works; it says which are missing.

options:
${formatOptions(OPTIONS)}`;
}

// Folders are positionals, which cli/args.js does not take: split them off here.
export function splitMergeArgv(argv) {
  const dirs = [];
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      dirs.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith('-') && a !== '-') {
      rest.push(a);
      if (a === '--out' && i + 1 < argv.length) rest.push(argv[++i]);
    } else {
      dirs.push(a);
    }
  }
  return { dirs, rest };
}

export async function run(argv) {
  const { dirs, rest } = splitMergeArgv(argv);
  const opts = parseOptions(rest, OPTIONS, 'eval merge');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  if (!dirs.length) throw new UsageError('give the run folders to merge (see `vit-relevance eval merge --help`)');
  await prepareOutDir(opts.out); // the folder, before the runs are read; its files once the kind is known
  const [first] = await readRuns(dirs.slice(0, 1));
  const kind = await loadKind(first.info.kind);
  await prepareOutDir(opts.out, outFiles(kind.name));
  const result = await mergeRuns({ dirs, outDir: opts.out, kind });
  console.log(`merged ${dirs.length} folder(s): ${result.records} record(s) → ${opts.out}`);
  if (result.missing.length) console.log(`note: shard(s) ${result.missing.join(', ')} not included`);
  for (const file of result.files) console.log(`wrote ${file}`);
  return 0;
}
