#!/usr/bin/env node
// `npm start`: builds whatever the page still lacks, then serves dist/site with the
// COOP/COEP headers that enable WebAssembly threads. PORT (default 8080) picks the port.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { projectPaths } from './paths.js';
import { buildSite } from './build/site.js';
import { createStaticServer, listen } from './serve.js';

const paths = projectPaths();
const needs = [
  ['WebAssembly core', path.join(paths.wasm, 'vit_relevance_core.wasm')],
  ['explainer graphs', path.join(paths.models, 'index.json')],
];
const missing = needs.filter(([, file]) => !existsSync(file)).map(([step]) => step);
if (missing.length) {
  console.log(`start: building ${missing.join(', ')} first`);
  const r = spawnSync(process.execPath, [path.join(paths.root, 'scripts', 'build.js'), ...missing],
    { stdio: 'inherit' });
  if (r.status !== 0) console.error('start: that build failed; serving the page anyway (it will show what is missing)');
}
// The site step is cheap (unchanged files are skipped): always refresh it.
await buildSite(paths);
const port = Number(process.env.PORT ?? 8080);
const bound = await listen(createStaticServer(paths.site), port, process.env.HOST ?? 'localhost');
console.log(`ViT Relevance: http://localhost:${bound}/  (Ctrl+C to stop)`);
