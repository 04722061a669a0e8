// The export's last check (models/export.py, write_model): the folder just written, opened
// by the runtime the CLI and the Node API use (runtime/node, onnxruntime-web as in the
// page) and explained once with every method its graphs feed, on a fixed pseudo-random
// input (a photo's pixels, or a text model's fixed sentence). A folder that fails here is not
// moved into place. Prints the predicted class and
// the methods run; on failure one line on stderr and exit 1.
//   node models/exporter/check_folder.mjs <folder>
import { loadExplainer } from '../../runtime/node/index.js';

// A fixed input of the model's kind: the check must not depend on a seed's luck.
function checkInput(metadata) {
  if (metadata.kind === 'text') return { text: 'The acting is superb, but the plot is a complete mess.' };
  const [, , h, w] = metadata.inputs.pixels;
  // roughly normalised pixels
  return { pixels: Float32Array.from({ length: 3 * h * w }, (_, i) => Math.sin(i * 0.7) * 1.5) };
}

const [folder] = process.argv.slice(2);
try {
  const explainer = await loadExplainer({ model: folder, threads: 1 });
  try {
    const { targets } = await explainer.explain(checkInput(explainer.metadata), { methods: explainer.methods });
    const maps = targets[0].maps;
    for (const id of explainer.methods) {
      const data = maps[id]?.data;
      if (!data?.length) throw new Error(`${id} gave no map`);
      if (!data.every(Number.isFinite)) throw new Error(`${id} gave a map with non-finite values`);
    }
    console.log(JSON.stringify({ class: targets[0].id, methods: explainer.methods }));
  } finally {
    await explainer.close();
  }
} catch (err) {
  console.error(String(err?.message ?? err).split('\n')[0]);
  process.exitCode = 1;
}
