// The registry table (registry.h). Definitions: METHODS.md; the implementations are in
// row_rollout.cpp (MethodForm::Rollout), single_block.cpp (Row and Map) and
// gradient_x_input.cpp (the pixel maps of AttnLRP and CP-LRP).

#include "methods/registry.h"

#include "methods/gradient_x_input.h"
#include "methods/single_block.h"

namespace vitrel {

namespace {

using T = Tensor;
constexpr const char* kChefer2021 = "https://arxiv.org/abs/2012.09838";

// One entry per method, fields in MethodInfo's order (registry.h); a table, so not
// reflowed by clang-format.
// clang-format off
const MethodInfo kMethods[] = {
    {Method::TransformerAttribution, "transformer_attribution",
     "Transformer attribution (Chefer et al. 2021)", "Transformer attribution",
     "rollout of E_h[(∇A ⊙ R)⁺] + I over the blocks from the start layer",
     kChefer2021,
     /*needs=*/{T::AttnGrad, T::AttnRel}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr,
     /*about=*/"Where the model found evidence for this class: each block's attention relevance (LRP) weighted by its gradient, positive parts only, combined over the blocks. Depends on the class; the paper's method and the best in its evaluations. Less telling for a class the model gives little probability."},
    {Method::AttentionRollout, "attention_rollout",
     "Attention rollout", "Rollout",
     "rollout of row-normalised E_h[A] + I over the blocks from the start layer",
     "https://arxiv.org/abs/2005.00928",
     /*needs=*/{T::Attn}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr,
     /*about=*/"Where the class token's attention flows, combined over the blocks. The same map for every class: it shows what the model looks at, not why it chose a class."},
    {Method::RawAttention, "raw_attention",
     "Raw attention (last block)", "Raw attention",
     "the last block's attention of the CLS token, mean over heads",
     kChefer2021,
     /*needs=*/{T::Attn}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/raw_attention_row, /*map=*/nullptr,
     /*about=*/"What the class token attends to in the last block, averaged over heads. The same map for every class, and often noisy: a first look, not an explanation."},
    {Method::GradCam, "gradcam",
     "Grad-CAM on attention", "Grad-CAM",
     "the last block's attention weighted by its mean gradient per head",
     "https://arxiv.org/abs/1610.02391",
     /*needs=*/{T::Attn, T::AttnGrad}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Map, /*row=*/nullptr, /*map=*/gradcam_map,
     /*about=*/"The last block's attention, each head weighted by how much it raises the class score. Depends on the class; coarse, and on vision transformers sometimes off the object."},
    {Method::PartialLrp, "partial_lrp",
     "Partial LRP", "Partial LRP",
     "the last block's LRP relevance at the attention (classic rules), mean over heads",
     "https://arxiv.org/abs/1905.09418",
     /*needs=*/{T::AttnRelClassicLast}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/partial_lrp_row, /*map=*/nullptr,
     /*about=*/"LRP relevance at the last block's attention, averaged over heads. On vision transformers it is often nearly the same for every class (a contrast says so when it is)."},
    {Method::LrpFull, "lrp_full",
     "LRP (full, to pixels)", "Full LRP",
     "classic LRP propagated down to the pixels, summed over RGB",
     "https://doi.org/10.1371/journal.pone.0130140",
     /*needs=*/{T::InputRelClassic}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/lrp_full_map,
     /*about=*/"Classic LRP carried back to every pixel: red for the class, blue against it. On transformers its values blow up at a few pixels and most of the map is noise; shown for comparison, not to be trusted alone."},
    {Method::GenericAttention, "generic_attention",
     "Generic attention (ICCV 2021)", "Generic attention",
     "P ← P + E_h[(∇A ⊙ A)⁺]·P over every block, from P = I",
     "https://arxiv.org/abs/2103.15679",
     /*needs=*/{T::Attn, T::AttnGrad}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr,
     /*about=*/"Gradient-weighted attention accumulated over every block, the same authors' later and simpler rule. Depends on the class; usually close to Transformer attribution."},
    {Method::AblationNoGrad, "ablation_no_grad",
     "Ablation: without ∇A", "Ours w/o ∇A",
     "transformer attribution without the gradient: rollout of E_h[R⁺] + I",
     kChefer2021,
     /*needs=*/{T::AttnRel}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr,
     /*about=*/"Transformer attribution without the gradient: the paper's ablation, to see what the gradient adds. Depends less on the class."},
    {Method::AblationLastBlock, "ablation_last_block",
     "Ablation: last block only", "Last block ∇A⊙R",
     "E_h[(∇A ⊙ R)⁺] of the last block, no rollout",
     kChefer2021,
     /*needs=*/{T::AttnGrad, T::AttnRel}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/last_block_product_row, /*map=*/nullptr,
     /*about=*/"Transformer attribution from the last block alone, without combining the blocks: the paper's ablation."},
    {Method::AblationSecondBlock, "ablation_second_block",
     "Ablation: second block only", "Second block ∇A⊙R",
     "E_h[(∇A ⊙ R)⁺] of block 1 (as the official code), no rollout",
     kChefer2021,
     /*needs=*/{T::AttnGrad, T::AttnRel}, /*start_layer=*/false, /*min_blocks=*/2,
     MethodForm::Row, /*row=*/second_block_product_row, /*map=*/nullptr,
     /*about=*/"Transformer attribution from the second block alone, as the official code does: the paper's ablation; early blocks say little about the class."},
    {Method::AttAttr, "attattr",
     "Self-Attention Attribution (Hao et al. 2021)", "Attention attribution",
     "rollout of E_h[Attr⁺] + I, Attr the integrated gradients of p_t over the attention",
     "https://arxiv.org/abs/2004.11207",
     /*needs=*/{T::Attr}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr,
     /*about=*/"How much each attention link adds to the class probability (integrated gradients over the attention), combined over the blocks. Depends on the class; computed in the Attribution panel, one block at a time."},
    {Method::AttnLrp, "attnlrp",
     "AttnLRP (Achtibat et al. 2024)", "AttnLRP",
     "signed LRP through every layer, softmax and both attention products: the pixel map, "
     "drawn in every view (its patch map: patchMap)",
     "https://arxiv.org/abs/2402.05602",
     /*needs=*/{T::InputRelAttnLrp}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/attnlrp_map,
     /*about=*/"LRP through every layer, the attention's softmax and products included, down to every pixel: red for the class, blue against it. Fine-grained; the drawing smooths it so that parts show as regions."},
    {Method::CpLrp, "cp_lrp",
     "CP-LRP (Ali et al. 2022)", "CP-LRP",
     "signed LRP through the value path only, the attention held constant: the pixel map, "
     "drawn in every view (its patch map: patchMap)",
     "https://arxiv.org/abs/2202.07304",
     /*needs=*/{T::InputRelCpLrp}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/cp_lrp_map,
     /*about=*/"LRP with the attention held fixed, down to every pixel: red for the class, blue against it. Usually close to AttnLRP, a little noisier."},
};
// clang-format on

}  // namespace

IdTable<MethodInfo> id_table(Method) { return {"method", kMethods}; }

}  // namespace vitrel
