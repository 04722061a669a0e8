#pragma once
// Contrastive maps, "why A rather than B" (docs/contrast.md): for every method whose map
// depends on the class, the difference of the two classes' maps, each divided by its
// largest magnitude:  contrast(A, B) = m_A / max|m_A| - m_B / max|m_B|  (a zero map stays
// zero). So contrast(B, A) = -contrast(A, B) for every method: swapping the classes always
// changes the answer unless the two maps are the same up to scale. The graph's e_A - e_B
// target row does not give this: ∇A and R both change sign with it and ∇A ⊙ R does not.
// Methods that read only the attention (raw attention, attention rollout) give the same
// map for every class and cannot contrast.

#include "methods/registry.h"
#include "methods/relevance.h"

namespace vitrel {

// Whether the method's map depends on the explained class (it reads a per-class tensor).
bool can_contrast(Method m);

// InputError for a class-agnostic method, maps of different shapes or non-finite values.
RelevanceMap contrast_map(Method m, const RelevanceMap& a, const RelevanceMap& b);

// How alike the two classes' own maps are: their Pearson correlation r (scale-free, as the
// contrast is), NaN when either map is constant. Near 1 the method hardly tells the two
// classes apart on this photo, and their contrast is the difference of two near-equal
// maps: a reader should be told. The same errors as contrast_map.
double contrast_correlation(Method m, const RelevanceMap& a, const RelevanceMap& b);

}  // namespace vitrel
