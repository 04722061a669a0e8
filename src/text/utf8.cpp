#include "text/utf8.h"

namespace vitrel::text {

namespace {

constexpr char32_t kReplacement = 0xFFFD;

// The length of the sequence lead byte b starts, and the range its second byte must be in
// (the Unicode standard's table 3-7; 0 for a byte that starts none).
struct Lead {
  int length;
  unsigned char low, high;
};

Lead lead_of(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};
  if (b == 0xED) return {3, 0x80, 0x9F};  // no surrogates
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing past U+10FFFF
  return {0, 0, 0};
}

}  // namespace

Chars decode_utf8(std::string_view bytes) {
  Chars out;
  out.reserve(bytes.size());
  int32_t unit = 0;
  const auto emit = [&](char32_t cp) {
    const int32_t width = cp >= 0x10000 ? 2 : 1;
    out.push_back({cp, unit, unit + width});
    unit += width;
  };
  size_t i = 0;
  while (i < bytes.size()) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      emit(b);
      ++i;
      continue;
    }
    const Lead lead = lead_of(b);
    if (lead.length == 0) {
      emit(kReplacement);
      ++i;
      continue;
    }
    char32_t cp = b & (0xFF >> (lead.length + 1));
    size_t j = i + 1;
    bool ok = true;
    for (int k = 1; k < lead.length; ++k, ++j) {
      const unsigned char low = k == 1 ? lead.low : 0x80, high = k == 1 ? lead.high : 0xBF;
      if (j >= bytes.size()) {
        ok = false;
        break;
      }
      const auto c = static_cast<unsigned char>(bytes[j]);
      if (c < low || c > high) {
        ok = false;
        break;
      }
      cp = (cp << 6) | (c & 0x3F);
    }
    emit(ok ? cp : kReplacement);  // the maximal subpart [i, j) becomes one U+FFFD
    i = j;
  }
  return out;
}

void append_utf8(char32_t cp, std::string& out) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacement;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace vitrel::text
