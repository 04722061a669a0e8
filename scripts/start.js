#!/usr/bin/env node
// `npm start`: builds whatever the page still lacks, then serves dist/site with the
// headers of scripts/site-headers.js (COOP/COEP for WebAssembly threads, the Content-
// Security-Policy). PORT (default 8080) picks the port; a bad one stops it before any build.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { projectPaths } from './paths.js';
import { buildSite } from './build/site.js';
import { createStaticServer, listen, portSetting } from './serve.js';

const fail = (err) => {
  console.error(`start: ${err.message}`);
  process.exit(1);
};
// A bad PORT is reported before any build runs.
let port;
try { port = portSetting(); } catch (err) { fail(err); }
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
const bound = await listen(createStaticServer(paths.site), port, process.env.HOST ?? 'localhost').catch(fail);
console.log(`ViT Relevance: http://localhost:${bound}/  (Ctrl+C to stop)`);
