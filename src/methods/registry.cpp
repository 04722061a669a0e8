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
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr},
    {Method::AttentionRollout, "attention_rollout",
     "Attention rollout", "Rollout",
     "rollout of row-normalised E_h[A] + I over the blocks from the start layer",
     "https://arxiv.org/abs/2005.00928",
     /*needs=*/{T::Attn}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr},
    {Method::RawAttention, "raw_attention",
     "Raw attention (last block)", "Raw attention",
     "the last block's attention of the CLS token, mean over heads",
     kChefer2021,
     /*needs=*/{T::Attn}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/raw_attention_row, /*map=*/nullptr},
    {Method::GradCam, "gradcam",
     "Grad-CAM on attention", "Grad-CAM",
     "the last block's attention weighted by its mean gradient per head",
     "https://arxiv.org/abs/1610.02391",
     /*needs=*/{T::Attn, T::AttnGrad}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Map, /*row=*/nullptr, /*map=*/gradcam_map},
    {Method::PartialLrp, "partial_lrp",
     "Partial LRP", "Partial LRP",
     "the last block's LRP relevance at the attention (classic rules), mean over heads",
     "https://arxiv.org/abs/1905.09418",
     /*needs=*/{T::AttnRelClassicLast}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/partial_lrp_row, /*map=*/nullptr},
    {Method::LrpFull, "lrp_full",
     "LRP (full, to pixels)", "Full LRP",
     "classic LRP propagated down to the pixels, summed over RGB",
     "https://doi.org/10.1371/journal.pone.0130140",
     /*needs=*/{T::InputRelClassic}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/lrp_full_map},
    {Method::GenericAttention, "generic_attention",
     "Generic attention (ICCV 2021)", "Generic attention",
     "P ← P + E_h[(∇A ⊙ A)⁺]·P over every block, from P = I",
     "https://arxiv.org/abs/2103.15679",
     /*needs=*/{T::Attn, T::AttnGrad}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr},
    {Method::AblationNoGrad, "ablation_no_grad",
     "Ablation: without ∇A", "Ours w/o ∇A",
     "transformer attribution without the gradient: rollout of E_h[R⁺] + I",
     kChefer2021,
     /*needs=*/{T::AttnRel}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr},
    {Method::AblationLastBlock, "ablation_last_block",
     "Ablation: last block only", "Last block ∇A⊙R",
     "E_h[(∇A ⊙ R)⁺] of the last block, no rollout",
     kChefer2021,
     /*needs=*/{T::AttnGrad, T::AttnRel}, /*start_layer=*/false, /*min_blocks=*/1,
     MethodForm::Row, /*row=*/last_block_product_row, /*map=*/nullptr},
    {Method::AblationSecondBlock, "ablation_second_block",
     "Ablation: second block only", "Second block ∇A⊙R",
     "E_h[(∇A ⊙ R)⁺] of block 1 (as the official code), no rollout",
     kChefer2021,
     /*needs=*/{T::AttnGrad, T::AttnRel}, /*start_layer=*/false, /*min_blocks=*/2,
     MethodForm::Row, /*row=*/second_block_product_row, /*map=*/nullptr},
    {Method::AttAttr, "attattr",
     "Self-Attention Attribution (Hao et al. 2021)", "Attention attribution",
     "rollout of E_h[Attr⁺] + I, Attr the integrated gradients of p_t over the attention",
     "https://arxiv.org/abs/2004.11207",
     /*needs=*/{T::Attr}, /*start_layer=*/true, /*min_blocks=*/1,
     MethodForm::Rollout, /*row=*/nullptr, /*map=*/nullptr},
    {Method::AttnLrp, "attnlrp",
     "AttnLRP (Achtibat et al. 2024)", "AttnLRP",
     "signed LRP through every layer, softmax and both attention products: the pixel map, "
     "drawn in every view (its patch map: patchMap)",
     "https://arxiv.org/abs/2402.05602",
     /*needs=*/{T::InputRelAttnLrp}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/attnlrp_map},
    {Method::CpLrp, "cp_lrp",
     "CP-LRP (Ali et al. 2022)", "CP-LRP",
     "signed LRP through the value path only, the attention held constant: the pixel map, "
     "drawn in every view (its patch map: patchMap)",
     "https://arxiv.org/abs/2202.07304",
     /*needs=*/{T::InputRelCpLrp}, /*start_layer=*/false, /*min_blocks=*/0,
     MethodForm::Map, /*row=*/nullptr, /*map=*/cp_lrp_map},
};
// clang-format on

}  // namespace

IdTable<MethodInfo> id_table(Method) { return {"method", kMethods}; }

}  // namespace vitrel
