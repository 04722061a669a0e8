#include <string>

#include "methods/relevance.h"

namespace vitrel {

namespace {

struct MethodName {
  Method method;
  const char* id;
};

// The single table of public ids (API, CLI, page, files).
const MethodName kMethodNames[] = {
    {Method::TransformerAttribution, "transformer_attribution"},
    {Method::AttentionRollout, "attention_rollout"},
    {Method::RawAttention, "raw_attention"},
    {Method::GradCam, "gradcam"},
    {Method::PartialLrp, "partial_lrp"},
    {Method::LrpFull, "lrp_full"},
    {Method::GenericAttention, "generic_attention"},
    {Method::AblationNoGrad, "ablation_no_grad"},
    {Method::AblationLastBlock, "ablation_last_block"},
    {Method::AblationSecondBlock, "ablation_second_block"},
    {Method::AttAttr, "attattr"},
};

}  // namespace

const std::vector<Method>& all_methods() {
  static const std::vector<Method> methods = [] {
    std::vector<Method> v;
    for (const MethodName& n : kMethodNames) v.push_back(n.method);
    return v;
  }();
  return methods;
}

const char* method_id(Method m) {
  for (const MethodName& n : kMethodNames)
    if (n.method == m) return n.id;
  return "unknown_method";
}

Method method_from_id(const std::string& id) {
  std::string valid;
  for (const MethodName& n : kMethodNames) {
    if (id == n.id) return n.method;
    valid += valid.empty() ? "" : ", ";
    valid += n.id;
  }
  throw InputError("method: unknown id \"" + id + "\"; valid ids: " + valid);
}

}  // namespace vitrel
