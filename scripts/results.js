// `npm run results [-- --runs DIR]`: writes the evaluations' tables into docs/results.md
// from the runs' own summaries. Each block
//   <!-- results: perturbation pointing-game -->  …  <!-- /results -->
// names run folders under --runs (default runs/, where the README's commands write); its
// text is made anew by that evaluation's own report code (the kind's `reports`) from the
// folder's run.json and summary JSON, so the tables are what the command measured, never
// copied by hand. A block with a run folder missing is left as it is, and said so.
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKind } from '../eval/node/kinds.js';
import { readRunInfo } from '../eval/node/records.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK = /(<!-- results: ([\w./ -]+?) -->\n)[\s\S]*?(<!-- \/results -->)/g;

// A run folder → its Markdown report without its title (the docs page gives the heading).
export async function reportOf(dir) {
  const info = await readRunInfo(dir);
  if (!info) return null;
  const kind = await loadKind(info.kind);
  const summary = JSON.parse(await readFile(path.join(dir, `${kind.name}.json`), 'utf8'));
  const reports = await kind.reports(summary, info.settings);
  const markdown = reports.find((r) => r.file.endsWith('.md'));
  if (!markdown) throw new Error(`${dir}: the ${kind.name} evaluation writes no Markdown report`);
  // Its headings become bold lines: the docs page's own headings stay its outline.
  const [title, ...rest] = markdown.text.trimEnd().split('\n').map((line) => line.replace(/^#+\s*(.*)$/, '**$1**'));
  return `${title} (\`${path.basename(dir)}/${kind.name}.json\`)\n${rest.join('\n')}\n`;
}

// text: the page; runs: the folder the blocks' names are under. → { text, written, kept }
export async function fillResults(text, runs) {
  const written = [];
  const kept = [];
  const reports = new Map();
  for (const [, , names] of text.matchAll(BLOCK)) {
    for (const name of names.split(' ')) {
      if (reports.has(name)) continue;
      const dir = path.join(runs, name);
      reports.set(name, existsSync(dir) ? await reportOf(dir) : null);
    }
  }
  const filled = text.replace(BLOCK, (block, open, names, close) => {
    const parts = names.split(' ').map((name) => reports.get(name));
    if (parts.some((r) => !r)) {
      kept.push(names);
      return block;
    }
    written.push(names);
    return `${open}${parts.join('\n')}${close}`;
  });
  return { text: filled, written, kept };
}

async function main(args) {
  const at = args.indexOf('--runs');
  const runs = path.resolve(at >= 0 ? args[at + 1] : path.join(root, 'runs'));
  const file = path.join(root, 'docs', 'results.md');
  const { text, written, kept } = await fillResults(await readFile(file, 'utf8'), runs);
  await writeFile(file, text);
  if (written.length) console.log(`wrote ${written.join(', ')} into ${path.relative(root, file)} from ${runs}`);
  if (kept.length) console.log(`kept ${kept.join(', ')} as they were: no run folder in ${runs}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(`results: ${err.message}`);
    process.exit(1);
  });
}
