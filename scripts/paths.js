// Where things live. Every script takes the shared data folder and the checkpoint folder
// from the environment so users can keep them anywhere.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function projectPaths(env = process.env) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const shared = path.resolve(root, env.VITREL_SHARED_DIR ?? '../shared');
  const sharedModels = path.join(shared, 'models');
  const checkpoints = env.VITREL_CHECKPOINT_DIR
    ? path.resolve(env.VITREL_CHECKPOINT_DIR)
    : existsSync(sharedModels) ? sharedModels : path.join(root, 'models', 'checkpoints');
  return {
    root,
    shared,
    checkpoints,
    sampleImages: path.resolve(root, env.VITREL_SAMPLE_IMAGES ?? path.join(shared, 'images')),
    labels: path.join(shared, 'imagenet', 'synset_words.txt'),
    build: path.join(root, 'build'),
    wasm: path.join(root, 'build', 'wasm'),
    models: path.join(root, 'build', 'models'),
    site: path.join(root, 'dist', 'site'),
  };
}
