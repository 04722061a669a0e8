// Build step "explainer graphs": exports DeiT-tiny's explainer graph (plus its plain
// forward graph, for benchmarks) and the default text model's (a Hugging Face BERT folder
// in the shared folder's models/) into build/models with models/export.py. The exporter
// keeps a stamp per model and returns at once when checkpoint, labels and exporter
// sources are unchanged, so this step is a quick no-op on an up-to-date tree.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const BUILD_MODELS = ['deit_tiny_patch16_224'];
// Text classifiers: Hugging Face folders under <shared>/models, exported under their folder's name
export const BUILD_TEXT_MODELS = ['bert-mini-sst2-movies'];
// Debian's interpreter: the python3 on PATH may be another install without torch.
const PYTHON = process.env.VITREL_PYTHON ?? '/usr/bin/python3';

function imageArgs(paths, model) {
  return ['--model', model, '--plain', '--split', '--attribution', '--checkpoint-dir', paths.checkpoints,
    '--labels', paths.labels, '--out', paths.models];
}

function textArgs(paths, model) {
  return ['--source', path.join(paths.shared, 'models', model), '--plain', '--attribution', '--out', paths.models];
}

function runExport(paths, model, exportArgs) {
  const args = [path.join(paths.root, 'models', 'export.py'), ...exportArgs];
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { cwd: paths.root, stdio: ['ignore', 'inherit', 'pipe'] });
    // Streams stderr as it comes and keeps the error line for the thrown message.
    let stderrTail = '';
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString()).slice(-4000);
    });
    child.on('error', (err) => reject(new Error(
      `cannot run ${PYTHON} (${err.message}); install python3-torch and python3-onnx (scripts/setup.sh)`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const errorLine = stderrTail.split('\n').reverse().find((l) => l.includes('error:'))
        ?? stderrTail.trim().split('\n').pop() ?? '';
      reject(new Error(`models/export.py ${exportArgs[0]} ${model} ${signal ? `was killed (${signal})` : `exited with ${code}`}`
        + (errorLine ? `: ${errorLine.replace(/^export\.py: error: /, '')}` : '')));
    });
  });
}

export async function buildModels(paths) {
  if (!existsSync(paths.labels)) {
    throw new Error(`ImageNet labels not found at ${paths.labels} (set VITREL_SHARED_DIR to the shared data folder)`);
  }
  for (const model of BUILD_MODELS) await runExport(paths, model, imageArgs(paths, model));
  for (const model of BUILD_TEXT_MODELS) {
    const folder = path.join(paths.shared, 'models', model);
    if (!existsSync(folder)) throw new Error(`text model folder ${folder} not found (set VITREL_SHARED_DIR to the shared data folder)`);
    await runExport(paths, model, textArgs(paths, model));
  }
}
