#pragma once
// The method registry: every relevance method in one table (registry.cpp), with its
// public id, what it reads, whether start_layer applies, how it is computed and how it is
// shown. The bindings hand the table to JS (core.methods), so the CLI's --help and
// validation, the page's labels and help, and which graph outputs an explanation fetches
// all come from here. Adding a method: docs/architecture.md, "Adding a method".

#include <initializer_list>
#include <vector>

#include "common/ids.h"

namespace vitrel {

// The tensors a model exports, named as the explainer graph's outputs everywhere
// (C++, bindings, JS keys, files; docs/architecture.md, "The explainer graph contract").
enum class Tensor {
  Attn,
  AttnGrad,
  AttnRel,
  AttnRelClassicLast,
  InputRelClassic,
  Attr,
  InputRelAttnLrp,
  InputRelCpLrp,
};

struct TensorInfo {
  Tensor value;
  const char* id;
  const char* description;  // with its shape, without the graph's K axis
  bool per_class;           // depends on the explained class (one per target row: the K axis)
};

inline constexpr TensorInfo kTensors[] = {
    {Tensor::Attn, "attn", "A [B,h,S,S]: post-softmax attention of every block", false},
    {Tensor::AttnGrad, "attn_grad", "G [B,h,S,S]: gradient of the class logit at A", true},
    {Tensor::AttnRel, "attn_rel", "R [B,h,S,S]: LRP relevance at A, proposed rules", true},
    {Tensor::AttnRelClassicLast, "attn_rel_classic_last",
     "Rc [h,S,S]: LRP relevance at the last block's A, classic rules", true},
    {Tensor::InputRelClassic, "input_rel_classic",
     "X [H,W]: classic LRP relevance at the pixels, summed over RGB (a text: [S] at the "
     "embeddings, summed over hidden)",
     true},
    {Tensor::Attr, "attr",
     "Attr [B,h,S,S]: Self-Attention Attribution (the attribution graphs, not the explainer)",
     true},
    {Tensor::InputRelAttnLrp, "input_rel_attnlrp",
     "[H,W]: AttnLRP relevance at the pixels (x . modified gradient), summed over RGB (a text: "
     "[S])",
     true},
    {Tensor::InputRelCpLrp, "input_rel_cp_lrp",
     "[H,W]: CP-LRP relevance at the pixels (x . modified gradient), summed over RGB (a text: "
     "[S])",
     true},
};
constexpr IdTable<TensorInfo> id_table(Tensor) { return {"tensor", kTensors}; }

// A set of tensors (what a method reads).
class TensorSet {
 public:
  constexpr TensorSet() = default;
  constexpr TensorSet(std::initializer_list<Tensor> tensors) {
    for (Tensor t : tensors) bits_ |= bit(t);
  }
  constexpr bool contains(Tensor t) const { return (bits_ & bit(t)) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr TensorSet& operator|=(TensorSet o) {
    bits_ |= o.bits_;
    return *this;
  }

 private:
  static constexpr unsigned bit(Tensor t) { return 1u << static_cast<unsigned>(t); }
  unsigned bits_ = 0;
};

// One value per registry entry; the order is the registry's (lists, --help, the page).
enum class Method {
  TransformerAttribution,
  AttentionRollout,
  RawAttention,
  GradCam,
  PartialLrp,
  LrpFull,
  GenericAttention,
  AblationNoGrad,
  AblationLastBlock,
  AblationSecondBlock,
  AttAttr,
  AttnLrp,
  CpLrp,
};

struct CheckedInputs;
struct RelevanceMap;

// How a method is computed from the checked inputs (relevance.cpp dispatches on it).
enum class MethodForm {
  Rollout,  // a token row pushed through the blocks (row_rollout.h), in the shared walk
  Row,      // a token row of one block: `row` below; the map is its patch columns
  Map,      // a whole map with no token row: `map` below
};

struct MethodInfo {
  Method value;
  const char* id;           // public id (API, CLI, page, files)
  const char* name;         // display name
  const char* short_name;   // the page's comparison-grid caption
  const char* description;  // one line: what the map is
  const char* paper;        // link to the method's paper ("" if none)
  TensorSet needs;          // the tensors its formula reads (METHODS.md, "needs")
  bool start_layer;         // options.start_layer applies
  int min_blocks;           // fewest blocks it is defined for
  MethodForm form;
  std::vector<float> (*row)(const CheckedInputs&);  // MethodForm::Row: the length-S row
  RelevanceMap (*map)(const CheckedInputs&);        // MethodForm::Map
  // In plain words, for people who have not read the paper: what the map shows, whether it
  // depends on the class and has a sign, when to trust it less ("" : the page shows
  // `description`, which is the formula, behind "Details" otherwise).
  const char* about = "";
};

IdTable<MethodInfo> id_table(Method);

// The registry entry of `m` (InputError for a value outside the table).
inline const MethodInfo& method_info(Method m) { return id_table(m).entry(m); }

}  // namespace vitrel
