// BERT's tokenizer (src/text) on fuzzed vocabularies, configurations, texts (any bytes:
// invalid UTF-8, controls, combining marks, CJK) and position limits: an InputError, or an
// encoding whose ids, offsets, words and truncation hold their invariants.

#include <string>

#include "common/errors.h"
#include "fuzz_support.h"
#include "text/tokenizer.h"

namespace {

using vitrel::text::Encoding;
using vitrel::text::Tokenizer;
using vitrel::text::TokenizerConfig;
using vitrel::text::Vocabulary;

void check(const Tokenizer& t, const Encoding& e, int max_tokens) {
  const size_t S = e.ids.size();
  FUZZ_CHECK(S >= 2 && S <= static_cast<size_t>(max_tokens));
  FUZZ_CHECK(e.starts.size() == S && e.ends.size() == S && e.word_index.size() == S);
  FUZZ_CHECK(e.word_starts.size() == e.word_ends.size());
  FUZZ_CHECK(e.dropped_tokens >= 0 && 0 <= e.text_end && e.text_end <= e.text_length);
  FUZZ_CHECK(e.word_index.front() == -1 && e.word_index.back() == -1);
  int32_t last_start = 0;
  int last_word = -1;
  for (size_t i = 1; i + 1 < S; ++i) {
    FUZZ_CHECK(e.ids[i] >= 0 && e.ids[i] < t.vocab().size());
    FUZZ_CHECK(last_start <= e.starts[i] && e.starts[i] < e.ends[i] && e.ends[i] <= e.text_end);
    last_start = e.starts[i];
    const int w = e.word_index[i];
    FUZZ_CHECK(w == last_word || w == last_word + 1);
    last_word = w;
    FUZZ_CHECK(e.word_starts[w] <= e.starts[i] && e.ends[i] <= e.word_ends[w]);
  }
  FUZZ_CHECK(static_cast<size_t>(last_word + 1) == e.word_starts.size());
  const std::vector<float> words = word_scores(t, e, std::vector<float>(S, 1.f));
  FUZZ_CHECK(words.size() == e.word_starts.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  TokenizerConfig config;
  config.do_lower_case = in.ConsumeBool();
  config.strip_accents = static_cast<TokenizerConfig::Strip>(in.ConsumeIntegralInRange(0, 2));
  config.tokenize_chinese_chars = in.ConsumeBool();
  // Mostly a vocabulary that has the special tokens (so texts get encoded), sometimes any.
  std::string vocab = in.ConsumeBool() ? "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\n" : "";
  vocab += in.ConsumeRandomLengthString(256);
  const int max_tokens = vitrel::fuzz::fuzz_size(in, 64);
  const std::string text = in.ConsumeRemainingBytesAsString();
  try {
    const Tokenizer t(Vocabulary::parse(vocab), config);
    check(t, t.encode(text, max_tokens), max_tokens);
  } catch (const vitrel::InputError&) {
  }
  return 0;
}
