// The .npy reader of the native test tools (tests/native/npy_reader.cpp) on arbitrary
// bytes: an array whose element count matches its shape, or an NpyError.

#include "fuzz_support.h"
#include "npy_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const vitrel::test::NpyArray a = vitrel::test::parse_npy(data, size, "fuzz.npy");
    uint64_t count = 1;
    for (int64_t d : a.shape) {
      FUZZ_CHECK(d >= 0);
      count *= static_cast<uint64_t>(d);
    }
    FUZZ_CHECK(a.data.size() == count);
    FUZZ_CHECK(count * 4 <= size);
  } catch (const vitrel::test::NpyError&) {
  }
  return 0;
}
