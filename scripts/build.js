#!/usr/bin/env node
// `npm run build`: builds everything the commands and the page need, skipping steps
// whose outputs are up to date. Steps run in dependency order.
//   VITREL_SHARED_DIR      the shared data folder (default ../shared)
//   VITREL_CHECKPOINT_DIR  where checkpoints are found (default <shared>/models if it
//                          exists, else models/checkpoints)
//   VITREL_MODELS          extra model folders (vit-relevance export), comma-separated,
//                          added to the site's models after the built-in one
import { buildWasm } from './build/wasm.js';
import { buildMethodIds } from './build/method-ids.js';
import { BUILD_MODELS, buildModels } from './build/models.js';
import { buildSite } from './build/site.js';
import { extraModels } from './build/site-models.js';
import { buildTypes } from './build/types.js';
import { projectPaths } from './paths.js';

const steps = [
  ['WebAssembly core', buildWasm],
  ['method ids', buildMethodIds],
  ['explainer graphs', buildModels],
  ['static site', buildSite],
  ['type declarations', buildTypes],
];

const only = process.argv.slice(2);
const paths = projectPaths();
// A wrong extra model folder stops the build before any step's work; the site step checks
// again against the models actually exported.
try {
  extraModels(process.env.VITREL_MODELS, BUILD_MODELS.map((name) => ({ name })));
} catch (err) {
  console.error(`build: ${err.message}`);
  process.exit(1);
}
for (const [name, step] of steps) {
  if (only.length && !only.some((o) => name.includes(o))) continue;
  const started = Date.now();
  console.log(`build: ${name}…`);
  try {
    await step(paths);
  } catch (err) {
    console.error(`build: ${name} failed: ${err.message}`);
    process.exit(1);
  }
  console.log(`build: ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
