// `vit-relevance export SOURCE --out DIR`: a timm, Hugging Face or torchvision ViT
// checkpoint → a model folder every command, the Node API and the page take. The work is
// the Python exporter's (models/export.py --source, PyTorch 1.13 with Debian's
// /usr/bin/python3); this command checks what it cheaply can first and streams its output.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseOptions, formatOptions, splitPositionals, UsageError } from '../args.js';
import { UserError } from '../../runtime/errors.js';

const EXPORTER = fileURLToPath(new URL('../../models/export.py', import.meta.url));
const PYTHON = process.env.VITREL_PYTHON ?? '/usr/bin/python3';

const OPTIONS = {
  out: { type: 'string', value: 'DIR', required: true, help: 'the model folder to write (graphs, weights, metadata, index.json)' },
  name: { type: 'string', value: 'NAME', help: 'the model\'s name (default: the checkpoint\'s file or folder name)' },
  labels: { type: 'string', value: 'FILE', help: 'class names, one per line in class order (default: the checkpoint\'s, else "class 0"…)' },
  heads: { type: 'int', min: 1, help: 'attention heads, when no config says and the shapes are none of the library\'s published ViTs' },
  eps: { type: 'string', value: 'E', help: 'LayerNorm eps, where the library\'s default does not hold' },
  act: { type: 'string', value: 'gelu|gelu_tanh|quickgelu', help: 'MLP activation, where the checkpoint cannot say' },
  mean: { type: 'string', value: 'm,m,m', help: 'normalisation mean (default: the checkpoint\'s config, else ImageNet\'s)' },
  std: { type: 'string', value: 's,s,s', help: 'normalisation std (default: the checkpoint\'s config, else ImageNet\'s)' },
  'crop-pct': { type: 'string', value: 'P', help: 'centre crop fraction: the short side is resized to size / P (default: the config\'s, else 0.875)' },
  interpolation: { type: 'string', value: 'bicubic|bilinear', help: 'resize filter (default: the config\'s, else bicubic)' },
  force: { type: 'boolean', help: 'export even when DIR is up to date (same checkpoint, options and exporter)' },
};
const CHOICES = { act: ['gelu', 'gelu_tanh', 'quickgelu'], interpolation: ['bicubic', 'bilinear'] };

export const summary = 'a timm, Hugging Face or torchvision ViT checkpoint, or a Hugging Face BERT/DistilBERT classifier → a model folder';

export function usage() {
  return `usage: vit-relevance export SOURCE --out DIR [--name NAME] [--labels FILE] [--heads N]
                            [--eps E] [--act gelu|gelu_tanh|quickgelu] [--mean m,m,m --std s,s,s]
                            [--crop-pct P] [--interpolation bicubic|bilinear] [--force]

SOURCE is a Hugging Face folder (save_pretrained: config.json + model.safetensors or
pytorch_model.bin), a timm hub folder or checkpoint (.pth, DeiT's {"model": …} too), or a
torchvision VisionTransformer state dict. The exporter reads the architecture from the
tensors and the config, prints the layout it found (tokens, pooling, LayerNorm eps,
activation, preprocessing), writes the graphs into a scratch folder beside DIR's files, checks
that their logits match a PyTorch forward of the layout it read within 1e-4, and has the
runtime open the folder and explain once with every method; only then are the files moved
into DIR (minutes: DeiT-tiny about four on 2 cores, a 12-block ViT-B/16 more). Stopped
(Ctrl-C, SIGTERM), it stops the exporter and leaves DIR as it was. Run again with the same
checkpoint, options and exporter, it finds DIR up to date and does nothing.

The parity check compares the graph with a forward of the *detected* layout: it cannot see
a wrong head count, LayerNorm eps or activation that the checkpoint does not state. The
head count comes from the config, else --heads, else the library's published architecture
the shapes exactly are (torchvision's vit_b_16 ... vit_h_14, timm's named ViT/DeiT
configs, printed); otherwise the export stops and asks for --heads. Check the printed
layout against the model's documentation. Then:
  vit-relevance explain photo.jpg --model DIR --out maps/

A Hugging Face BertForSequenceClassification or DistilBertForSequenceClassification folder
(config.json, the weights, vocab.txt, tokenizer_config.json) gives a text model: the same
checks on texts of 3 to 40 tokens, the vocabulary copied beside the graphs; the image
options do not apply to it.

options:
${formatOptions(OPTIONS)}`;
}

function checkNumbers(name, text, count) {
  if (text === undefined) return;
  const values = text.split(',');
  if (values.length !== count || values.some((v) => !Number.isFinite(Number(v)) || v.trim() === '')) {
    throw new UsageError(`--${name} takes ${count === 1 ? 'a number' : `${count} numbers separated by commas`}, got "${text}"`);
  }
}

// Every mistake found here costs nothing; the exporter's own checks need PyTorch (seconds).
// A bad file or folder exits 2, as the exporter's own refusals do.
function checkArguments(source, opts) {
  const refuse = (message) => new UserError(message, { exitCode: 2 });
  if (!existsSync(source)) throw refuse(`checkpoint ${source} not found`);
  const kind = statSync(source);
  if (!kind.isFile() && !kind.isDirectory()) throw refuse(`checkpoint ${source} is not a file or a folder (a device, FIFO or socket)`);
  if (existsSync(opts.out) && !statSync(opts.out).isDirectory()) throw refuse(`--out ${opts.out} is a file, not a folder`);
  const parent = path.dirname(path.resolve(opts.out));
  if (!existsSync(parent)) throw refuse(`--out ${opts.out}: its parent folder ${parent} does not exist`);
  if (opts.labels && !existsSync(opts.labels)) throw refuse(`--labels ${opts.labels} not found`);
  for (const [name, choices] of Object.entries(CHOICES)) {
    if (opts[name] !== undefined && !choices.includes(opts[name])) throw new UsageError(`--${name} must be one of ${choices.join(', ')}, got "${opts[name]}"`);
  }
  checkNumbers('eps', opts.eps, 1);
  checkNumbers('crop-pct', opts.cropPct, 1);
  checkNumbers('mean', opts.mean, 3);
  checkNumbers('std', opts.std, 3);
  if ((opts.mean === undefined) !== (opts.std === undefined)) throw new UsageError('--mean and --std go together');
}

function exporterArgs(source, opts) {
  const args = [EXPORTER, '--source', path.resolve(source), '--out', path.resolve(opts.out), '--plain', '--split', '--attribution', ...(opts.force ? ['--force'] : [])];
  for (const name of ['name', 'labels', 'heads', 'eps', 'act', 'mean', 'std', 'crop-pct', 'interpolation']) {
    const value = opts[name.replace(/-([a-z])/g, (_, c) => c.toUpperCase())];
    if (value !== undefined) args.push(`--${name}`, name === 'labels' ? path.resolve(value) : String(value));
  }
  return args;
}

// Scratch folders the exporter makes in DIR (".<name>.<random>", tempfile's): the ones a
// stopped export leaves are those that were not there before it started.
const scratchFolders = (out) => (existsSync(out) ? readdirSync(out).filter((f) => /^\.[^.].*\.[a-z0-9_]{8}$/.test(f)) : []);

// Runs the exporter in a process group of its own; SIGINT/SIGTERM to this command stop the
// whole group (the exporter's tracing workers and node runners too) and remove what the
// stopped export had begun: its scratch folders, and DIR itself when it made it empty.
function runExporter(source, opts) {
  const out = path.resolve(opts.out);
  const before = new Set(scratchFolders(out));
  const hadOut = existsSync(out);
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, exporterArgs(source, opts), { stdio: ['ignore', 'inherit', 'pipe'], detached: true });
    let stderr = '';
    let stoppedBy = null;
    const stop = (signal) => {
      stoppedBy = signal;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch { /* the group has already exited */ }
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', (err) => reject(new UserError(`cannot run ${PYTHON} (${err.code}): the exporter needs Debian's python3 with python3-torch (scripts/setup.sh)`)));
    child.on('close', (status) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      if (stoppedBy) {
        for (const f of scratchFolders(out).filter((f) => !before.has(f))) rmSync(path.join(out, f), { recursive: true, force: true });
        if (!hadOut && existsSync(out) && readdirSync(out).length === 0) rmSync(out, { recursive: true });
        reject(new UserError(`stopped by ${stoppedBy}: ${opts.out} was left as it was`, { exitCode: stoppedBy === 'SIGINT' ? 130 : 143 }));
        return;
      }
      // the exporter's own one-line errors (exit 2); PyTorch's tracer warnings are left out
      const error = stderr.split('\n').find((line) => line.startsWith('export.py: error: '));
      if (status && error) reject(new UserError(error.slice('export.py: error: '.length), { exitCode: status }));
      else if (status) reject(new Error(`models/export.py exited with ${status}:\n${stderr}`));
      else resolve(0);
    });
  });
}

export async function run(argv) {
  const { positionals, rest } = splitPositionals(argv, OPTIONS);
  const opts = parseOptions(rest, OPTIONS, 'export');
  if (opts.help) {
    console.log(usage());
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `one SOURCE expected, got ${positionals.join(' ')}` : 'give the checkpoint to export (a file or a folder)');
  checkArguments(positionals[0], opts);
  const code = await runExporter(positionals[0], opts);
  console.log(`explain with: vit-relevance explain PHOTO --model ${opts.out} --out DIR`);
  return code;
}
