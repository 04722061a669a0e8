#!/usr/bin/env node
// `npm run bench`: every benchmark, printing measured figures and the ratios the issues
// set as targets, each ratio taken within one run. Not a test: it never fails on speed.
// Pass names to run a subset: `npm run bench -- core explain`. A bench marked named-only
// runs only when named (the soak takes ten minutes).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const benches = [
  ['core', 'core.js'],        // relevance methods: WebAssembly vs native; row-vector vs full-matrix rollout (native)
  ['explain', 'explain.js'],  // explainer graph vs plain forward in onnxruntime-web; K=5 vs 5×K=1
  ['browser', 'browser.js'],  // the page in headless Chromium: first heatmap, class switch, code size
  ['eval', 'eval.js'],        // explain per stage; evaluation throughput and overhead; shards merged = one run
  ['attribute', 'attribute.js'], // Self-Attention Attribution of every block vs plain forward; its MACs vs the minimum
  ['sessions', 'session-open.js'], // a graph's session opening per optimisation level, and where it goes
  ['embed', 'embed.js'],      // <vit-relevance> elements: 2nd/3rd element and class switch vs the page's; script size
  ['main-core', 'main-core.js'], // the main thread's copy of the core: its load and memory, a redraw vs the Worker's round trip
  ['scale', 'scale.js'],      // random ViT-S/16 and ViT-B/16 exports beside DeiT-tiny, in Node and the page: ratios, peak memory
  ['text', 'text.js'],        // a text model: every method vs its forward in Node and the page; its export; what text adds to the site
  ['soak', 'soak.js', true],  // the page's startup 100 times beside two CPU hogs: ready or an error, never a stall
  ['report', 'report.js'],    // docs/benchmarks.md from the targets the runs above recorded (bench/targets.js)
];
const only = process.argv.slice(2);
let failed = 0;
for (const [name, file, namedOnly] of benches) {
  if (only.length ? !only.includes(name) : namedOnly) continue;
  console.log(`\n##### bench: ${name}`);
  const r = spawnSync(process.execPath, [path.join(here, file)], { stdio: 'inherit' });
  if (r.status !== 0) { failed++; console.log(`bench ${name} exited with ${r.status}`); }
}
process.exit(failed ? 1 : 0);
