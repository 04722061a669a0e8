// @ts-check
// The ONNX session options of each graph an explainer opens, and the weight sizes that
// change them: one table, measured (docs/experiments.md), read by runtime/explainer-graphs.js,
// runtime/text-explainer.js, the Worker (web/worker/sessions.js) and the bench.

// On the CPU (onnxruntime-web's WebAssembly, onnxruntime-node's cpu) every graph opens
// without onnxruntime's weight prepacking. In onnxruntime-web its prepacked products round
// otherwise, and the LRP passes amplify rounding: the golden transformer-attribution map of
// catdog's class 282 (METHODS.md) fell from Pearson 0.9998 to 0.997 (the graphs of before
// docs/experiments.md's "Graphs block by block") or 0.989 (theirs) with it. Prepacking also
// took a third of a session's opening and a packed copy of the weights, for runs no quicker.
export const CPU_SESSION = { extra: { session: { disable_prepacking: '1' } } };

// The plain forward graph opens with onnxruntime's graph optimisation off: the exporter
// leaves nothing in it to fold (its products are Gemm over the weights as stored:
// models/exporter/explainer.py, plain_block), and optimisation took about a third of its
// ONNX session's opening, which is on the page's way to "ready", while its forwards are as
// fast without it (docs/experiments.md, "Opening a model"). WebGPU keeps onnxruntime's
// defaults (not measured there).
export const FORWARD_SESSION = { graphOptimizationLevel: 'disabled' };

// A method family's graph: the exporter leaves its pieces with nothing to fold or fuse but
// the LinearParts the loops read (models/exporter/scan_graph.py: a weight's positive and
// negative parts and its magnitude). At the basic level onnxruntime folds them into
// constants, up to three copies of the weights more in the session (DeiT-tiny's default
// family graph: 60–75 MB, Node); with optimisation off they are computed on each run.
// Folded (FOLDED_FAMILY_SESSION) where the weights are at most FOLD_WEIGHTS_BYTES: the
// page's first map in a new tab came 180–260 ms sooner (the first run's operators are
// fewer, and V8 compiles each as it is first called; two interleaved runs of 9 and 12
// visits), the session opened as fast in the page and later runs were as long (1.007×, 30
// paired runs in Node). Computed otherwise (FAMILY_SESSION): a ViT-S/16 page with every
// session open would hold up to about 0.8 GB more (docs/experiments.md, "The family
// graphs' level, measured in the browser").
export const FAMILY_SESSION = { graphOptimizationLevel: 'disabled' };
export const FOLDED_FAMILY_SESSION = { graphOptimizationLevel: 'basic' };
export const FOLD_WEIGHTS_BYTES = 32 * 2 ** 20;

// A text model's family graph opens with optimisation off too: its opening is on the way to
// the first map of a text model chosen in the page. bert-mini-sst2-movies'
// transformer_attribution family (1,171 nodes, its shapes written), onnxruntime-web in
// Node, warm: 80 ms against 160 at the default level; runs as long (512 tokens 0.97–1.01×,
// 32 tokens 1.05×, one thread), outputs within 1.7e-7 of the default level's. In the
// page, choosing the text model on a returning visit: the opening 65–76 ms against
// 177–224, the first run as long (docs/experiments.md, "A text model chosen in the page").
export const TEXT_FAMILY_SESSION = { graphOptimizationLevel: 'disabled' };

// The photo graph opens as whoever opens it first needs: optimisation off where a request
// waits on the opening (an embed's init opens it: embeds predict with it), the basic level
// (AHEAD_PHOTO_SESSION) where the page opens it while its Worker is idle, for its runs (one
// per photo). DeiT-tiny, onnxruntime-web in Node, quiet: fresh openings 99 ms (off), 226
// (basic), 284 (the default level); runs on 2 threads 1.04× the default level's (off) and
// 0.99× (basic), outputs identical. An element's startup in a new tab, 4 interleaved
// rounds: 1,385 ms against 1,529 with the basic level (docs/experiments.md, "The split
// graphs' openings").
export const PHOTO_SESSION = { graphOptimizationLevel: 'disabled' };
export const AHEAD_PHOTO_SESSION = { graphOptimizationLevel: 'basic' };

// The class graph opens at the basic level, for embeds (its opening is on the way to their
// first map) and the page (every class switch runs it) alike: fresh openings 487 ms against
// 598 at the default level, runs 0.96–0.99× as long (30 paired runs, 2 threads). With
// optimisation off it opened in 301 ms but ran 1.04–1.05× as long, and an element's first
// map came no sooner in the browser (1,493 ms against 1,338, 4 interleaved rounds): the
// first runs of its unfused operators cost what the opening saved (same entry).
export const CLASS_SESSION = { graphOptimizationLevel: 'basic' };

// A model whose weights file is larger than this keeps one ONNX session open at a time
// (`oneSession`): each session holds its own copy of the weights, and a run as much again
// in its records (a random ViT-B/16, 346 MB of weights: one session of its default graph,
// opened and run, 1.6 GB; every graph of the page open, 4.6 GB of the renderer's memory:
// docs/experiments.md). ViT-S/16's 88 MB stay below it.
export const LARGE_WEIGHTS_BYTES = 128 * 2 ** 20;

// `options` with `cpu`'s merged in where every execution provider is the CPU's (WebGPU
// keeps onnxruntime's defaults: not measured there).
export function onCpu(options, cpu) {
  if (!options.executionProviders.every((ep) => ['wasm', 'cpu'].includes(ep.name ?? ep))) return options;
  return { ...options, ...cpu, extra: { ...options.extra, session: { ...options.extra?.session, ...cpu.extra?.session } } };
}
