#!/usr/bin/env node
// `npm run bench -- sessions`: what opening a graph's session costs, the step between the
// page's "ready" and its first heat map (the default method's family graph opens there,
// web/worker.js). Each opening runs in a fresh process, as in a fresh page Worker, in
// onnxruntime-web (the page's engine) on one thread; the option sets run interleaved round
// by round so machine noise hits them alike. Printed: medians of the CPU time (the steadier
// on a shared machine) against the default options', and of the wall time. Then where one opening's time goes, from onnxruntime-node's verbose log (the
// same C++ as onnxruntime-web's WebAssembly): the model's loading, each graph transformer,
// and the session state (kernels, allocation plan, initializers). Verbose logging slows
// every step a little, so only its shares mean anything.
// Env: VITREL_BENCH_GRAPH (a graph of build/models; default the default method's family
// graph), VITREL_BENCH_ROUNDS (default 3).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CPU_SESSION, FORWARD_SESSION } from '../runtime/session-options.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const modelsDir = path.join(here, '..', 'build', 'models');

// onnxruntime-web's graph optimisation levels; 'all' is its default.
// Each without weight prepacking, as runtime/explainer.js opens every graph on the CPU.
const OPTION_SETS = {
  all: { ...CPU_SESSION },
  extended: { ...CPU_SESSION, graphOptimizationLevel: 'extended' },
  basic: { ...CPU_SESSION, graphOptimizationLevel: 'basic' },
  disabled: { ...CPU_SESSION, graphOptimizationLevel: 'disabled' },
};

// Child: as a fresh page Worker does (web/worker.js), compile onnxruntime, open the plain
// forward graph's session with the page's options, then `graph`'s with `options` →
// { forwardMs, wallMs, cpuMs } on stdout (CPU time of the whole process: V8 tiering
// onnxruntime's WebAssembly up in the background counts too). With --native: `graph` alone
// in onnxruntime-node, its verbose log on stderr.
async function child([mode, graph, weights, forward, options]) {
  if (mode === '--native') {
    const { createRequire } = await import('node:module');
    const ortNode = createRequire(import.meta.url)('onnxruntime-node');
    process.chdir(path.dirname(graph)); // it reads the external weights beside the graph
    await ortNode.InferenceSession.create(graph, { intraOpNumThreads: 1, logSeverityLevel: 0, logVerbosityLevel: 0 });
    return;
  }
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  await ort.InferenceSession.create(new Uint8Array(0)).catch(() => {}); // compiles onnxruntime
  const externalData = [{ path: path.basename(weights), data: readFileSync(weights) }];
  const open = (bytes, more) => ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], externalData, ...more });
  const forwardBytes = readFileSync(forward);
  let t0 = performance.now();
  await open(forwardBytes, { ...CPU_SESSION, ...FORWARD_SESSION });
  const forwardMs = performance.now() - t0;
  const bytes = readFileSync(graph);
  const cpu0 = process.cpuUsage();
  t0 = performance.now();
  await open(bytes, JSON.parse(options));
  const wallMs = performance.now() - t0;
  const { user, system } = process.cpuUsage(cpu0);
  console.log(JSON.stringify({ forwardMs, wallMs, cpuMs: (user + system) / 1000 }));
}

function runChild(args) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`session-open child ${args.join(' ')} failed: ${r.stderr.slice(-2000)}`);
  return r;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// The verbose log's lines → ms per step: "load" until the session initialises, each graph
// transformer from its "Applying" line to the next step's, "session state" after the last.
function stepsOf(log) {
  const steps = new Map();
  let step = 'load';
  let last = null;
  for (const line of log.split('\n')) {
    const m = /^\S+ (\d+):(\d+):([\d.]+) \[[^\]]*\] ?(.*)/.exec(line);
    if (!m) continue;
    const t = (Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3])) * 1000;
    if (last !== null) steps.set(step, (steps.get(step) ?? 0) + t - last);
    last = t;
    const applying = /Applying graph transformer (\S+)/.exec(m[4]);
    if (applying) step = `transformer ${applying[1]}`;
    else if (/Initializing session/.test(m[4])) step = 'load';
    else if (/VerifyEachNodeIsAssignedToAnEp|SaveMLValueNameIndexMapping/.test(line)) step = 'session state';
  }
  return steps;
}

async function main() {
  const index = JSON.parse(readFileSync(path.join(modelsDir, 'index.json'), 'utf8'));
  const { split } = index.models.find((m) => m.split?.families) ?? {};
  if (!split) throw new Error(`${modelsDir}/index.json has no model with method family graphs: run npm run build`);
  const graph = path.join(modelsDir, process.env.VITREL_BENCH_GRAPH ?? Object.values(split.families)[0]);
  const weights = path.join(modelsDir, split.weights);
  const forward = path.join(modelsDir, split.forward);
  const rounds = Number(process.env.VITREL_BENCH_ROUNDS ?? 3);
  console.log(`opening ${path.basename(graph)} in onnxruntime-web (Node, 1 thread), fresh process each, ${rounds} rounds`);
  const times = new Map(Object.keys(OPTION_SETS).map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, options] of Object.entries(OPTION_SETS)) {
      times.get(name).push(JSON.parse(runChild(['--web', graph, weights, forward, JSON.stringify(options)]).stdout));
    }
  }
  const cpuOf = (name) => median(times.get(name).map((t) => t.cpuMs));
  for (const [name, ts] of times) {
    console.log(`graphOptimizationLevel ${name}: CPU ${cpuOf(name).toFixed(0)} ms (${(cpuOf(name) / cpuOf('all')).toFixed(2)}× the default's), `
      + `wall ${median(ts.map((t) => t.wallMs)).toFixed(0)} ms; the plain forward graph's before it: wall ${median(ts.map((t) => t.forwardMs)).toFixed(0)} ms`);
  }
  const steps = stepsOf(runChild(['--native', graph, weights, forward, '{}']).stderr);
  const total = [...steps.values()].reduce((a, b) => a + b, 0);
  const transformers = [...steps].filter(([k]) => k.startsWith('transformer '));
  const share = (ms) => `${((100 * ms) / total).toFixed(0)} %`;
  console.log(`where one opening goes (onnxruntime-node, verbose log, ${total.toFixed(0)} ms): load ${share(steps.get('load') ?? 0)}, `
    + `graph transformers ${share(transformers.reduce((a, [, ms]) => a + ms, 0))} (${transformers.length}), session state ${share(steps.get('session state') ?? 0)}`);
  console.log(`  costliest transformers: ${transformers.sort((a, b) => b[1] - a[1]).slice(0, 6)
    .map(([k, ms]) => `${k.slice('transformer '.length)} ${share(ms)}`).join(', ')}`);
}

if (process.argv[2] === '--child') await child(process.argv.slice(3));
else await main();
