#!/usr/bin/env node
// `vit-relevance <command> [options]`: dispatches to cli/commands/<command>.js, each of
// which exports { summary, usage(), run(argv) → exit code }. Mistakes the user can fix
// (runtime/errors.js UserError and its subclasses) print one line and exit non-zero;
// anything else is a bug and prints its stack.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { UserError } from '../runtime/errors.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const COMMANDS = ['explain', 'attribute', 'maps', 'eval', 'export'];

function commandFile(name) {
  return path.join(here, 'commands', `${name}.js`);
}

async function loadCommand(name) {
  return import(pathToFileURL(commandFile(name)).href);
}

async function mainHelp() {
  const lines = ['usage: vit-relevance <command> [options]', '', 'commands:'];
  for (const name of COMMANDS) {
    if (!existsSync(commandFile(name))) continue;
    const { summary = '' } = await loadCommand(name);
    lines.push(`  ${name.padEnd(10)}${summary}`);
  }
  lines.push('', 'Run `vit-relevance <command> --help` for its options.');
  return lines.join('\n');
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0]) return main([rest[0], '--help']);
    console.log(await mainHelp());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    const pkg = JSON.parse(await readFile(path.join(here, '..', 'package.json'), 'utf8'));
    console.log(pkg.version);
    return 0;
  }
  if (!COMMANDS.includes(name) || !existsSync(commandFile(name))) {
    console.error(`vit-relevance: unknown command "${name}"\n\n${await mainHelp()}`);
    return 2;
  }
  const command = await loadCommand(name);
  try {
    return (await command.run(rest)) ?? 0;
  } catch (err) {
    if (!(err instanceof UserError)) throw err;
    console.error(`vit-relevance ${name}: error: ${err.message}`);
    return err.exitCode ?? 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => {
    console.error(`vit-relevance: internal error: ${err?.stack ?? err}`);
    process.exitCode = 70;
  },
);
