// Build step "explainer graphs": exports DeiT-tiny's explainer graph (plus its plain
// forward graph, for benchmarks) into build/models with models/export.py. The exporter
// keeps a stamp per model and returns at once when checkpoint, labels and exporter
// sources are unchanged, so this step is a quick no-op on an up-to-date tree.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const BUILD_MODELS = ['deit_tiny_patch16_224'];
// Debian's interpreter: the python3 on PATH may be another install without torch.
const PYTHON = process.env.VITREL_PYTHON ?? '/usr/bin/python3';

function runExport(paths, model) {
  const args = [
    path.join(paths.root, 'models', 'export.py'),
    '--model', model, '--plain', '--split', '--attribution',
    '--checkpoint-dir', paths.checkpoints,
    '--labels', paths.labels,
    '--out', paths.models,
  ];
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
      reject(new Error(`models/export.py --model ${model} ${signal ? `was killed (${signal})` : `exited with ${code}`}`
        + (errorLine ? `: ${errorLine.replace(/^export\.py: error: /, '')}` : '')));
    });
  });
}

export async function buildModels(paths) {
  if (!existsSync(paths.labels)) {
    throw new Error(`ImageNet labels not found at ${paths.labels} (set VITREL_SHARED_DIR to the shared data folder)`);
  }
  for (const model of BUILD_MODELS) await runExport(paths, model);
}
