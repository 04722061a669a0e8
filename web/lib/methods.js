// Display names of the relevance method ids (docs/architecture.md, METHODS.md).
export const METHOD_NAMES = {
  transformer_attribution: 'Transformer attribution (Chefer et al. 2021)',
  attention_rollout: 'Attention rollout',
  raw_attention: 'Raw attention (last block)',
  gradcam: 'Grad-CAM on attention',
  partial_lrp: 'Partial LRP',
  lrp_full: 'LRP (full, to pixels)',
  generic_attention: 'Generic attention (ICCV 2021)',
  ablation_no_grad: 'Ablation: without ∇A',
  ablation_last_block: 'Ablation: last block only',
  ablation_second_block: 'Ablation: second block only',
};

// Short names for the comparison grid's captions.
export const METHOD_SHORT = {
  transformer_attribution: 'Transformer attribution',
  attention_rollout: 'Rollout',
  raw_attention: 'Raw attention',
  gradcam: 'Grad-CAM',
  partial_lrp: 'Partial LRP',
  lrp_full: 'Full LRP',
  generic_attention: 'Generic attention',
  ablation_no_grad: 'Ours w/o ∇A',
  ablation_last_block: 'Last block ∇A⊙R',
  ablation_second_block: 'Second block ∇A⊙R',
};

// The three rollouts are the methods the start layer changes.
export const USES_START_LAYER = new Set(['transformer_attribution', 'attention_rollout', 'ablation_no_grad']);

export const methodName = (id) => METHOD_NAMES[id] ?? id;
