// The phases of opening a model in the Worker, timed and reported as they start and end,
// so the page shows what it is waiting for ("compiling onnxruntime", "preparing the
// model") and the benchmark prints where the time went. Phases may overlap (the model is
// read while onnxruntime compiles): each report lists every phase still running.
import { REPLY } from './protocol.js';

// Phase ids (the `phases` of REPLY.PHASE and of `ready.phaseMs`).
export const PHASE = Object.freeze(/** @type {const} */ ({
  FETCH: 'fetch',       // the model files, from Cache Storage or the network
  COMPILE: 'compile',   // onnxruntime's WebAssembly: compiled and instantiated
  CORE: 'core',         // the relevance core's WebAssembly
  PREPARE: 'prepare',   // the first session (the page's: the plain forward graph's; graph checks included)
}));

/** A load phase's id. @typedef {typeof PHASE[keyof typeof PHASE]} LoadPhase */

// The words the page shows for each phase.
export const PHASE_WORDS = Object.freeze({
  [PHASE.FETCH]: 'reading the model',
  [PHASE.COMPILE]: 'compiling onnxruntime',
  [PHASE.CORE]: 'loading the relevance core',
  [PHASE.PREPARE]: 'preparing the model',
});

// → { time(phase, fn), ms, report }: time() runs fn as the phase, reporting through
// `reply`; ms holds each finished phase's duration; report() says again which phases run
// (a sign of life within a long phase: web/lib/load-watch.js).
export function phaseTimer(reply) {
  const running = new Set();
  const ms = {};
  const report = () => reply({ type: REPLY.PHASE, phases: [...running] });
  async function time(phase, fn) {
    const started = performance.now();
    running.add(phase);
    report();
    try {
      return await fn();
    } finally {
      running.delete(phase);
      ms[phase] = performance.now() - started;
      if (running.size) report();
    }
  }
  return { time, ms, report };
}
