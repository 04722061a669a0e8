#include "eval/perturbation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/image_checks.h"
#include "tensor/tensor_view.h"

namespace vitrel {

namespace {

void require_fraction(double fraction, const char* what) {
  if (!(fraction >= 0.0 && fraction <= 1.0)) {
    throw InputError(std::string(what) + ": fraction " + std::to_string(fraction) +
                     " must be in [0, 1]");
  }
}

}  // namespace

std::size_t removed_pixel_count(std::size_t pixels, double fraction) {
  require_fraction(fraction, "removed_pixel_count");
  return static_cast<std::size_t>(std::floor(static_cast<double>(pixels) * fraction));
}

std::vector<std::uint32_t> removal_ranking(const float* map, std::size_t n, RemovalOrder order) {
  if (map == nullptr || n == 0) throw InputError("removal_ranking map: no values");
  if (n > std::size_t{UINT32_MAX}) throw InputError("removal_ranking map: more than 2^32 values");
  const int64_t bad = first_non_finite(map, static_cast<int64_t>(n));
  if (bad >= 0) {
    throw InputError("removal_ranking map: non-finite value " + std::to_string(map[bad]) +
                     " at index " + std::to_string(bad));
  }
  std::vector<std::uint32_t> ranking(n);
  std::iota(ranking.begin(), ranking.end(), 0u);
  // Indices start ascending and the sort is stable, so equal values keep lower index first.
  if (order == RemovalOrder::most_relevant_first) {
    std::stable_sort(ranking.begin(), ranking.end(),
                     [map](std::uint32_t a, std::uint32_t b) { return map[a] > map[b]; });
  } else {
    std::stable_sort(ranking.begin(), ranking.end(),
                     [map](std::uint32_t a, std::uint32_t b) { return map[a] < map[b]; });
  }
  return ranking;
}

std::vector<float> perturbed_inputs(const std::uint8_t* rgba, int width, int height,
                                    const float* map, const std::vector<double>& fractions,
                                    RemovalOrder order, const std::array<float, 3>& mean,
                                    const std::array<float, 3>& std) {
  require_image_size(width, height, "perturbed_inputs");
  if (rgba == nullptr) throw InputError("perturbed_inputs: no RGBA buffer");
  if (fractions.empty()) throw InputError("perturbed_inputs: no fractions");
  for (double f : fractions) require_fraction(f, "perturbed_inputs");
  for (int c = 0; c < 3; ++c) {
    if (!std::isfinite(mean[c]) || !std::isfinite(std[c]) || std[c] == 0.0f) {
      throw InputError("perturbed_inputs: mean and std must be finite and std non-zero, got mean[" +
                       std::to_string(c) + "] = " + std::to_string(mean[c]) + ", std[" +
                       std::to_string(c) + "] = " + std::to_string(std[c]));
    }
    require_finite_normalisation(mean[c], std[c], c, "perturbed_inputs");
  }
  const std::size_t pixels = std::size_t(width) * std::size_t(height);
  const std::vector<std::uint32_t> ranking = removal_ranking(map, pixels, order);

  // The unperturbed normalised image; a removed pixel is a black one, normalised.
  std::vector<float> image(3 * pixels);
  std::array<float, 3> removed{};
  for (int c = 0; c < 3; ++c) {
    removed[c] = (0.0f - mean[c]) / std[c];
    float* plane = image.data() + c * pixels;
    for (std::size_t p = 0; p < pixels; ++p)
      plane[p] = (rgba[4 * p + c] / 255.0f - mean[c]) / std[c];
  }

  // Visit the fractions from smallest to largest so each one only removes the pixels the
  // previous one kept; every result is written to its caller's slot.
  std::vector<std::size_t> visit(fractions.size());
  std::iota(visit.begin(), visit.end(), std::size_t{0});
  std::stable_sort(visit.begin(), visit.end(),
                   [&](std::size_t a, std::size_t b) { return fractions[a] < fractions[b]; });
  std::vector<float> out(fractions.size() * 3 * pixels);
  std::size_t done = 0;
  for (std::size_t slot : visit) {
    const std::size_t k = removed_pixel_count(pixels, fractions[slot]);
    for (; done < k; ++done) {
      const std::uint32_t p = ranking[done];
      for (int c = 0; c < 3; ++c) image[c * pixels + p] = removed[c];
    }
    std::copy(image.begin(), image.end(), out.begin() + slot * 3 * pixels);
  }
  return out;
}

}  // namespace vitrel
