// The files of a models/index.json entry the page reads: the metadata, the split graphs,
// the method family graphs and their weights (else the self-contained explainer graph; a
// text model's split has no photo and class graphs, its explainer graph `onnx` reads the weights),
// the Attribution panel's graphs, and a text model's vocabulary. Not the plain forward graph with its own copy of the
// weights, nor the head-masked forward: the Node evaluations read those. The one list:
// "Open your model…" keeps these, the build copies these into the site.
export function pageFiles(entry) {
  const split = entry.split;
  const graphs = split ? [split.weights, split.graph ?? entry.onnx, ...[split.photo, split.target, split.forward].filter(Boolean),
    ...Object.values(split.families ?? {})] : [entry.onnx];
  const attribution = entry.attribution ? [entry.attribution.states, ...(entry.attribution.blocks ?? []), entry.attribution.weights] : [];
  // once each: a text model's attribution graphs read the split's weights file
  return [...new Set([entry.metadata, ...graphs, ...attribution, ...(entry.vocab ? [entry.vocab] : [])])]; // a text model reads its vocabulary
}

// What the model picker lists: classes, input size ([rows, cols]) and bytes kept.
export const modelInfo = (metadata, bytes) => ({ classes: metadata.labels.length, imageSize: metadata.architecture.image_size, bytes });

// What the page keeps of a model, in bytes, as models/index.json counts it.
export const pageBytes = (entry) => (entry.split?.bytes ?? entry.bytes ?? 0) + (entry.attribution?.bytes ?? 0);
