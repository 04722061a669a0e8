// The tokenizer against Hugging Face's BertTokenizer on every case of
// golden/text/tokenizer_cases.json (uncased and do_lower_case false), its offsets'
// invariants, and its answers to hostile text and vocabularies.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/expect_input_error.h"
#include "support/mini_json.h"
#include "support/shared_data.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace vitrel::text {
namespace {

using testing::expect_input_error;

std::string golden(const std::string& name) {
  return test::shared_dir() + "/reference/golden/text/" + name;
}

Tokenizer bert_tokenizer(bool lower) {
  TokenizerConfig config;
  config.do_lower_case = lower;
  return Tokenizer(Vocabulary::parse(test::read_text_file(
                       test::shared_dir() + "/models/bert-mini-sst2-movies/vocab.txt")),
                   config);
}

// The text as UTF-16 code units, to check offsets as JavaScript would slice.
std::u16string utf16(const std::string& utf8) {
  std::u16string out;
  for (const Char& c : decode_utf8(utf8)) {
    if (c.cp >= 0x10000) {
      out += static_cast<char16_t>(0xD800 + ((c.cp - 0x10000) >> 10));
      out += static_cast<char16_t>(0xDC00 + ((c.cp - 0x10000) & 0x3FF));
    } else {
      out += static_cast<char16_t>(c.cp);
    }
  }
  return out;
}

// What every encoding must satisfy, whatever the text.
void expect_offset_invariants(const Encoding& e, const std::string& text, int max_tokens) {
  const size_t S = e.ids.size();
  ASSERT_GE(S, 2u);
  ASSERT_LE(S, static_cast<size_t>(max_tokens));
  ASSERT_EQ(e.starts.size(), S);
  ASSERT_EQ(e.ends.size(), S);
  ASSERT_EQ(e.word_index.size(), S);
  EXPECT_EQ(e.text_length, static_cast<int32_t>(utf16(text).size()));
  EXPECT_EQ(e.word_index.front(), -1);
  EXPECT_EQ(e.word_index.back(), -1);
  EXPECT_EQ(e.starts.front(), 0);
  EXPECT_EQ(e.ends.back(), 0);
  int32_t previous_start = 0;
  int previous_word = -1;
  for (size_t i = 1; i + 1 < S; ++i) {
    EXPECT_LE(0, e.starts[i]);
    EXPECT_LT(e.starts[i], e.ends[i]) << "token " << i;
    EXPECT_LE(e.ends[i], e.text_end);
    EXPECT_LE(previous_start, e.starts[i]) << "token " << i;
    previous_start = e.starts[i];
    const int w = e.word_index[i];
    EXPECT_TRUE(w == previous_word || w == previous_word + 1) << "token " << i;
    previous_word = w;
    EXPECT_LE(e.word_starts[w], e.starts[i]);
    EXPECT_GE(e.word_ends[w], e.ends[i]);
  }
  EXPECT_EQ(static_cast<size_t>(previous_word + 1), e.word_starts.size());
  EXPECT_LE(e.text_end, e.text_length);
  if (e.dropped_tokens == 0) EXPECT_EQ(e.text_end, e.text_length);
}

TEST(TextTokenizer, EveryGoldenCaseGivesHuggingFacesIds) {
  const test::JsonValue cases =
      test::parse_json(test::read_text_file(golden("tokenizer_cases.json"))).at("cases");
  ASSERT_GE(cases.array.size(), 16u);
  const Tokenizer uncased = bert_tokenizer(true), cased = bert_tokenizer(false);
  for (const test::JsonValue& c : cases.array) {
    const std::string& text = c.at("text").string;
    SCOPED_TRACE(text);
    for (const auto& [tokenizer, key] :
         {std::pair{&uncased, "uncased"}, std::pair{&cased, "do_lower_case_false"}}) {
      const Encoding e = tokenizer->encode(text, 512);
      std::vector<int> expected;
      for (const test::JsonValue& id : c.at(key).at("ids").array)
        expected.push_back(static_cast<int>(id.number));
      EXPECT_EQ(e.ids, expected) << key;
      if (c.at(key).has("tokens")) {
        std::vector<std::string> tokens;
        for (int id : e.ids) tokens.push_back(tokenizer->vocab().token(id));
        std::vector<std::string> expected_tokens;
        for (const test::JsonValue& t : c.at(key).at("tokens").array)
          expected_tokens.push_back(t.string);
        EXPECT_EQ(tokens, expected_tokens) << key;
      }
      expect_offset_invariants(e, text, 512);
    }
  }
}

TEST(TextTokenizer, OffsetsSliceTheTypedText) {
  const Tokenizer t = bert_tokenizer(true);
  const std::string text = "Héllo 😀 wörld, naïve";
  const Encoding e = t.encode(text, 512);
  const std::u16string s = utf16(text);
  std::vector<std::u16string> words;
  for (size_t w = 0; w < e.word_starts.size(); ++w)
    words.push_back(s.substr(e.word_starts[w], e.word_ends[w] - e.word_starts[w]));
  // The emoji is [UNK] in this vocabulary but still a word, after a surrogate pair.
  EXPECT_EQ(words, (std::vector<std::u16string>{u"Héllo", u"😀", u"wörld", u",", u"naïve"}));
  // A decomposed accent belongs to its letter's token (NFC joins them first).
  const Encoding d = t.encode("cafe\xCC\x81 ok", 512);
  EXPECT_EQ(d.word_starts, (std::vector<int32_t>{0, 6}));
  EXPECT_EQ(d.word_ends, (std::vector<int32_t>{5, 8}));
}

TEST(TextTokenizer, TruncatesAtTheModelsPositionsAndSaysWhere) {
  const Tokenizer t = bert_tokenizer(true);
  const std::string text = "one two three four five";
  const Encoding e = t.encode(text, 5);  // [CLS] one two three [SEP]
  ASSERT_EQ(e.ids.size(), 5u);
  EXPECT_EQ(e.dropped_tokens, 2);
  EXPECT_EQ(e.text_end, 13);  // after "three"
  EXPECT_EQ(e.word_starts.size(), 3u);
  expect_offset_invariants(e, text, 5);
  expect_input_error([&] { t.encode(text, 1); }, "max_tokens: 1");
}

TEST(TextTokenizer, EmptyAndControlOnlyTextsAreJustClsSep) {
  const Tokenizer t = bert_tokenizer(true);
  for (const std::string text : {std::string(), std::string(" \t\n"), std::string("\x01\x02", 2),
                                 std::string("\0", 1), std::string("\xE2\x80\x8B")}) {
    const Encoding e = t.encode(text, 512);
    EXPECT_EQ(e.ids, (std::vector<int>{101, 102}));
    EXPECT_TRUE(e.word_starts.empty());
  }
}

TEST(TextTokenizer, InvalidUtf8ReadsAsReplacementCharactersWhichBertDrops) {
  const Tokenizer t = bert_tokenizer(true);
  // A lone continuation byte, a truncated 3-byte sequence, an encoded surrogate, 0xFF.
  const std::string text = "a\x80 b\xE2\x82 c\xED\xA0\x80 d\xFF";
  const Encoding e = t.encode(text, 512);
  EXPECT_EQ(e.ids, t.encode("a b c d", 512).ids);
  // U+FFFD per maximal subpart, one UTF-16 unit each, as TextDecoder decodes them:
  // a \uFFFD space b \uFFFD space c \uFFFD\uFFFD\uFFFD space d \uFFFD (Node: 13, "d" at 11)
  EXPECT_EQ(e.text_length, 13);
  EXPECT_EQ(e.word_starts, (std::vector<int32_t>{0, 3, 6, 11}));
}

TEST(TextTokenizer, LiteralSpecialTokensStayWholeAsInHuggingFace) {
  const Tokenizer t = bert_tokenizer(true);
  const Encoding e = t.encode("good [SEP] bad[MASK]", 512);
  EXPECT_EQ(e.ids, (std::vector<int>{101, 2204, 102, 2919, 103, 102}));
}

TEST(TextTokenizer, LongWordsAreUnknownAndWorkStaysLinear) {
  const Tokenizer t = bert_tokenizer(true);
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "supercalifragilistic" + std::string(i % 7, 'x') + " ";
  text += std::string(5000, 'q');  // one 5000-character word: [UNK]
  const Encoding e = t.encode(text, 512);
  EXPECT_EQ(e.ids.size(), 512u);
  EXPECT_GT(e.dropped_tokens, 20000);
  const Encoding last = t.encode(std::string(101, 'a'), 512);
  EXPECT_EQ(last.ids, (std::vector<int>{101, 100, 102}));
}

TEST(TextTokenizer, ALongTextIsTheSameAsItsPartsSeparatedByWhitespace) {
  // Tokenized in stretches of several thousand characters: the cuts must not show.
  const Tokenizer t = bert_tokenizer(true);
  const std::string part =
      "Cafe\xCC\x81 na\xC3\xAFve \xE4\xB8\xAD\xE6\x96\x87 unbelievable! x\xCC\xA3\xCC\x87 ";
  std::string text;
  std::vector<int> expected{101};
  const Encoding one = t.encode(part, 512);
  for (int i = 0; i < 800; ++i) {
    text += part;
    expected.insert(expected.end(), one.ids.begin() + 1, one.ids.end() - 1);
  }
  expected.push_back(102);
  const Encoding all = t.encode(text, 100000);
  EXPECT_EQ(all.ids, expected);
  EXPECT_EQ(all.dropped_tokens, 0);
  const Encoding cut = t.encode(text, 50);
  EXPECT_EQ(cut.dropped_tokens, static_cast<int>(expected.size()) - 50);
  expect_offset_invariants(cut, text, 50);
}

TEST(TextTokenizer, VocabularyErrorsNameTheLine) {
  expect_input_error([] { Vocabulary::parse(""); }, "vocab: the vocabulary is empty");
  expect_input_error([] { Vocabulary::parse("a\nb\na\n"); },
                     "vocab: line 3 repeats the token \"a\" of line 1");
  expect_input_error([] { Vocabulary::parse("a\n\nb"); }, "vocab: line 2 is empty");
  expect_input_error([] { Vocabulary::parse("a\r\nb\r\n"); }, "vocab: line 1 ends in a carriage");
  expect_input_error([] { Vocabulary::parse("a\n\xFF\n"); }, "vocab: line 2 is not valid UTF-8");
  expect_input_error([] { Vocabulary::parse(std::string(Vocabulary::kMaxBytes + 1, 'a')); },
                     "more than the");
  expect_input_error([] { Tokenizer(Vocabulary::parse("[SEP]\n[UNK]\n"), TokenizerConfig{}); },
                     "tokenizer.cls_token: \"[CLS]\" is not in the vocabulary");
  const Vocabulary v = Vocabulary::parse("[CLS]\n[SEP]\n[UNK]\nab\n##c");
  EXPECT_EQ(v.size(), 5);
  EXPECT_EQ(v.id_of("##c"), 4);
  EXPECT_EQ(v.longest_token(), 5);
}

TEST(TextTokenizer, WordScoresAreTheMaxOfTheirPiecesWithoutSpecials) {
  const Tokenizer t = bert_tokenizer(true);
  // [CLS] the un ##ima ##gina ##tive 😀→[UNK] [SEP]: words "the", "unimaginative", "😀"
  const Encoding e = t.encode("the unimaginative 😀", 512);
  ASSERT_EQ(e.word_starts.size(), 3u);
  std::vector<float> scores(e.ids.size());
  for (size_t i = 0; i < scores.size(); ++i) scores[i] = static_cast<float>(i) * (i % 2 ? 1 : -1);
  scores.front() = 100.f;  // [CLS] never counts
  const std::vector<float> words = word_scores(t, e, scores);
  ASSERT_EQ(words.size(), 3u);
  EXPECT_EQ(words[0], scores[1]);
  float most = -1e9f;
  for (size_t i = 2; i + 2 < e.ids.size(); ++i) most = std::max(most, scores[i]);
  EXPECT_EQ(words[1], most);
  EXPECT_TRUE(std::isnan(words[2]));  // an unknown word has no score
  expect_input_error([&] { word_scores(t, e, {1.f}); }, "word map: the token map has 1 values");
}

}  // namespace
}  // namespace vitrel::text
