// Evaluation kinds by name, loaded only when needed (a merge reads the name from run.json).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkKind } from './run.js';
import { UserError } from '../../runtime/errors.js';

const KIND_MODULES = {
  perturbation: '../../eval/perturbation.js',
  'pointing-game': '../../eval/pointing-game.js',
  segmentation: '../../eval/segmentation.js',
  'prune-heads': '../../eval/prune-heads.js',
  rationales: '../../eval/rationales.js',
};

export const KIND_NAMES = Object.keys(KIND_MODULES);

export async function loadKind(name) {
  const url = KIND_MODULES[name] && new URL(KIND_MODULES[name], import.meta.url);
  if (!url) throw new UserError(`unknown evaluation "${name}"; known: ${KIND_NAMES.join(', ')}`);
  if (!existsSync(fileURLToPath(url))) throw new UserError(`the ${name} evaluation is not part of this installation`);
  const { kind } = await import(url.href);
  if (kind?.name !== name) throw new Error(`${fileURLToPath(url)} exports no kind named ${name}`);
  return checkKind(kind);
}
