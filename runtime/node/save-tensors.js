// @ts-check
// Node-only: `explain --save-tensors`: the model's own logits and attention for an input,
// written as .npy beside maps.json so a user can compare an export with the framework
// the checkpoint came from (issue 27):
//   DIR/tensors/logits.npy           [1, classes]
//   DIR/tensors/attn-block<b>.npy    [heads, S, S], every token in the graph's order, which
//                                    is the checkpoint's: [cls, dist, registers…, patches]
// One more run of the explainer graph, for the predicted class (the attention does not
// depend on the class): the explanation's own tensors live in the core's heap by then.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import { openExplainerFile } from './open-explainer.js';
import { writeNpyFile } from './npy-file.js';
import { prepareOutDir } from './out-dir.js';

export const TENSORS_DIR = 'tensors';

export const tensorFileNames = (blocks) => ['logits.npy', ...Array.from({ length: blocks }, (_, b) => `attn-block${b}.npy`)];

// Checks before any run that DIR/tensors can take the files (prepareOutDir's rules).
export async function prepareTensorsDir(out, metadata) {
  const dir = path.join(out, TENSORS_DIR);
  await prepareOutDir(dir, tensorFileNames(metadata.architecture.blocks));
  return dir;
}

// pixels: the normalised model input the explanation used. → the files written.
export async function saveModelTensors({ model, metadata, pixels, dir, engine, threads }) {
  const explainer = await openExplainerFile(model, { engine, threads, metadata });
  let out;
  try {
    out = await explainer.explain(pixels, [null], { outputs: ['attn'] });
  } finally {
    await explainer.release();
  }
  const { blocks, heads, tokens: S, num_classes: C } = metadata.architecture;
  const attn = out.tensors[0].attn;
  const expected = [blocks, heads, S, S];
  if (attn.shape.join() !== expected.join()) {
    throw new Error(`attn has shape [${attn.shape.join(',')}], the metadata says [${expected.join(',')}]`);
  }
  await mkdir(dir, { recursive: true });
  const [logitsFile, ...blockFiles] = tensorFileNames(blocks).map((f) => path.join(dir, f));
  await writeNpyFile(logitsFile, { data: out.logits.slice(0, C), shape: [1, C] });
  const block = heads * S * S;
  for (let b = 0; b < blocks; b++) {
    await writeNpyFile(blockFiles[b], { data: attn.data.slice(b * block, (b + 1) * block), shape: [heads, S, S] });
  }
  return [logitsFile, ...blockFiles];
}
