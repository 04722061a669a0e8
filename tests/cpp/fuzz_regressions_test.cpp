// What the fuzz targets (tests/fuzz) and the sanitizer build found, one test per finding,
// so each stays fixed in the plain Release suite too.

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "eval/perturbation.h"
#include "npy_reader.h"
#include "preprocess/preprocess.h"
#include "support/expect_input_error.h"

namespace vitrel {
namespace {

using testing::expect_input_error;

// fuzz_preprocess: a finite but tiny std (or a huge mean) normalised pixels to infinity,
// so the model got an input of infinities without a word.
TEST(FuzzRegressions, PreprocessSpecWhoseNormalisationOverflowsIsRejected) {
  PreprocessSpec spec;
  spec.stddev = {0.229f, 1e-40f, 0.225f};
  expect_input_error([&] { plan_preprocess(224, 224, spec); },
                     "preprocess spec: mean[1] = 0.456 and std[1] = ");
  expect_input_error([&] { plan_preprocess(224, 224, spec); },
                     " normalise pixel value 0 to -inf, outside float32 range");
  spec.stddev = {0.5f, 0.5f, 0.5f};
  spec.mean = {0.5f, 0.5f, -3e38f};
  expect_input_error([&] { require_valid_spec(spec); },
                     "preprocess spec: mean[2] = -3e+38 and std[2] = 0.5 normalise pixel value 0 "
                     "to inf, outside float32 range");
}

// fuzz_eval: the same in the perturbation test's inputs.
TEST(FuzzRegressions, PerturbationNormalisationThatOverflowsIsRejected) {
  const std::vector<uint8_t> rgba(4 * 4, 200);
  const std::vector<float> map = {0.f, 1.f, 2.f, 3.f};
  const std::array<float, 3> mean{0.5f, 0.5f, 0.5f}, tiny{0.5f, 0.5f, -1e-40f};
  expect_input_error(
      [&] {
        perturbed_inputs(rgba.data(), 2, 2, map.data(), {0.5}, RemovalOrder::most_relevant_first,
                         mean, tiny);
      },
      "perturbed_inputs: mean[2] = 0.5 and std[2] = ");
}

std::vector<uint8_t> npy_bytes(const std::string& dict, size_t data_bytes) {
  std::string file("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(dict.size() & 0xff);
  file += static_cast<char>(dict.size() >> 8);
  file += dict;
  file.append(data_bytes, '\0');
  return std::vector<uint8_t>(file.begin(), file.end());
}

std::string npy_error(const std::vector<uint8_t>& bytes) {
  try {
    test::parse_npy(bytes.data(), bytes.size(), "x.npy");
  } catch (const test::NpyError& e) {
    return e.what();
  }
  return "no NpyError";
}

// The test tools' old reader multiplied the dims in int64 (signed overflow: UBSan), read
// them with std::stoll (out_of_range escaped as an unnamed exception) and parsed the header
// with std::regex (recursion deep enough to overflow the stack on long headers).
TEST(FuzzRegressions, NpyReaderRejectsHeadersItCannotRepresent) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, 'shape': ";
  EXPECT_EQ(
      npy_error(npy_bytes(f4 + "(4294967296, 4294967296), }", 0)),
      "x.npy: shape has too many elements in .npy header " + f4 + "(4294967296, 4294967296), }");
  EXPECT_NE(npy_error(npy_bytes(f4 + "(0, 99999999999999999999), }", 0))
                .find("shape dimension too large"),
            std::string::npos);
  EXPECT_NE(npy_error(npy_bytes(f4 + "(2, 3), }", 20)).find("20 data bytes, the shape needs 24"),
            std::string::npos);
  EXPECT_NE(npy_error(npy_bytes(f4 + "(2, -3), }", 24)).find("malformed shape"), std::string::npos);
  const std::string long_header = f4 + "(1,), " + std::string(60000, ' ') + "}";
  EXPECT_EQ(
      test::parse_npy(npy_bytes(long_header, 4).data(), npy_bytes(long_header, 4).size(), "x.npy")
          .shape,
      (std::vector<int64_t>{1}));
  std::vector<uint8_t> cut = npy_bytes(f4 + "(1,), }", 4);
  cut[8] = 0xff;  // header length past the end of the file
  EXPECT_EQ(npy_error(cut), "x.npy: truncated .npy header");
}

TEST(FuzzRegressions, NpyReaderReadsWhatItAccepts) {
  std::vector<uint8_t> bytes =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 0);
  const float values[2] = {1.5f, -3e38f};
  const auto* raw = reinterpret_cast<const uint8_t*>(values);
  bytes.insert(bytes.end(), raw, raw + sizeof values);
  const test::NpyArray a = test::parse_npy(bytes.data(), bytes.size(), "x.npy");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(a.data, (std::vector<float>{1.5f, -3e38f}));
  const std::vector<uint8_t> scalar =
      npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
  EXPECT_TRUE(test::parse_npy(scalar.data(), scalar.size(), "x.npy").shape.empty());
  EXPECT_NE(npy_error(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 8))
                .find("dtype '<f8' is not float32"),
            std::string::npos);
  EXPECT_NE(npy_error(npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", 4))
                .find("Fortran-order"),
            std::string::npos);
}

}  // namespace
}  // namespace vitrel
