// Shared by the explain tests: the real DeiT-tiny graph and its skip reason, golden keys.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { root, shared } from './maps-support.js';
import { loadCore } from '../../runtime/core.js';
import { graphMethodIds } from '../../runtime/metadata.js';

// VITREL_DEIT_MODEL points the tests at another export of the same graph.
export const deitModel = path.resolve(root, process.env.VITREL_DEIT_MODEL ?? 'build/models/deit_tiny_patch16_224.onnx');
export const deitForward = deitModel.replace(/\.onnx$/, '.forward.onnx');
export const haveDeit = existsSync(deitModel) && existsSync(deitModel.replace(/\.onnx$/, '.json'));
export const coreBuilt = existsSync(path.join(root, 'build', 'wasm', 'vit_relevance_core.wasm'));
export const images = path.join(shared, 'images');
export const goldenInput = path.join(shared, 'reference', 'golden', 'catdog-input.npy');
export const goldenJson = path.join(shared, 'reference', 'golden', 'catdog.json');

export const skipDeit = !haveDeit
  ? `the DeiT-tiny explainer graph is not built (${path.relative(root, deitModel)}): run \`npm run build\``
  : !coreBuilt ? 'the WebAssembly core is not built: run `npm run build`'
    : !existsSync(goldenJson) ? `golden data not found in ${shared} (set VITREL_SHARED_DIR)`
      : false;

// The methods one run of the built DeiT-tiny graph feeds ('all' for it): attnlrp and cp_lrp
// only when its export has them.
export async function deitMethodIds() {
  return graphMethodIds(await loadCore(), JSON.parse(readFileSync(deitModel.replace(/\.onnx$/, '.json'), 'utf8')));
}

// The methods the golden tensors feed: all but attattr and AttnLRP's (no golden attr nor
// pixel maps of theirs).
export async function goldenMethodIds() {
  const core = await loadCore();
  const golden = ['attn', 'attn_grad', 'attn_rel', 'attn_rel_classic_last', 'input_rel_classic'];
  return core.methodIds.filter((m) => core.outputsFor([m]).length && core.outputsFor([m]).every((t) => golden.includes(t)));
}

// Our method id → [key in catdog.json, minimum Pearson] (METHODS.md, "Golden data"): the LRP
// rollouts are robust but not bit-reproducible; gradient/attention methods are.
export const GOLDEN = {
  transformer_attribution: ['transformer_attribution', 0.99],
  ablation_no_grad: ['lrp_rollout', 0.99],
  ablation_last_block: ['last_layer_grad_x_rel', 0.99],
  attention_rollout: ['attention_rollout', 0.999],
  raw_attention: ['raw_attention', 0.999],
  gradcam: ['gradcam', 0.999],
  generic_attention: ['generic_iccv21', 0.999],
  partial_lrp: ['partial_lrp', 0.999],
};
// The methods whose hottest patch must agree with the reference's too.
export const SAME_ARGMAX = ['transformer_attribution', 'ablation_no_grad', 'ablation_last_block'];

export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}
