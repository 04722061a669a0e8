#include "text/unicode.h"

#include <algorithm>

namespace vitrel::text {

namespace {

// The entry of a table sorted by `key` whose key is cp, or nullptr.
template <class T, class Key>
const T* find(const T* table, size_t count, char32_t cp, Key key) {
  const T* end = table + count;
  const T* it =
      std::lower_bound(table, end, cp, [&](const T& e, char32_t v) { return key(e) < v; });
  return it != end && key(*it) == cp ? it : nullptr;
}

// The range of a sorted, non-overlapping range table holding cp, or nullptr.
template <class T>
const T* find_range(const T* table, size_t count, char32_t cp) {
  const T* end = table + count;
  const T* it =
      std::upper_bound(table, end, cp, [](char32_t v, const T& e) { return v < e.first; });
  if (it == table) return nullptr;
  --it;
  return cp <= it->last ? it : nullptr;
}

// Hangul syllables (the Unicode standard, 3.12 "Conjoining Jamo Behavior").
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

bool is_hangul(char32_t cp) { return cp >= kSBase && cp < kSBase + kSCount; }

int combining_class(char32_t cp) {
  if (cp < 0x300) return 0;
  const CombiningRange* r = find_range(kCombiningRanges, kCombiningRangesCount, cp);
  return r ? r->ccc : 0;
}

void append_decomposed(const Char& c, Chars& out) {
  if (is_hangul(c.cp)) {
    const char32_t s = c.cp - kSBase;
    out.push_back({kLBase + s / kNCount, c.start, c.end});
    out.push_back({kVBase + (s % kNCount) / kTCount, c.start, c.end});
    if (s % kTCount != 0) out.push_back({kTBase + s % kTCount, c.start, c.end});
    return;
  }
  const Decomposition* d = c.cp < 0xC0 ? nullptr
                                       : find(kDecompositions, kDecompositionsCount, c.cp,
                                              [](const Decomposition& e) { return e.from; });
  if (!d) {
    out.push_back(c);
    return;
  }
  for (int i = 0; i < d->length; ++i)
    out.push_back({kDecompositionData[d->offset + i], c.start, c.end});
}

// The primary composite of (a, b), or 0.
char32_t compose(char32_t a, char32_t b) {
  if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
    return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
  if (is_hangul(a) && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
    return a + (b - kTBase);
  const Composition* end = kCompositions + kCompositionsCount;
  const Composition* it =
      std::lower_bound(kCompositions, end, a, [&](const Composition& e, char32_t) {
        return e.first < a || (e.first == a && e.second < b);
      });
  return it != end && it->first == a && it->second == b ? it->composite : 0;
}

}  // namespace

CharClass char_class(char32_t cp) {
  const ClassRange* r = find_range(kClassRanges, kClassRangesCount, cp);
  return r ? static_cast<CharClass>(r->value) : CharClass::Control;  // beyond U+10FFFF
}

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
         (cp >= 0x20000 && cp <= 0x2A6DF) || (cp >= 0x2A700 && cp <= 0x2B73F) ||
         (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

void append_lower(const Char& c, Chars& out) {
  if (c.cp < 0x80) {
    out.push_back({c.cp >= 'A' && c.cp <= 'Z' ? c.cp + 32 : c.cp, c.start, c.end});
    return;
  }
  if (const CodeMap* m =
          find(kLowerSingle, kLowerSingleCount, c.cp, [](const CodeMap& e) { return e.from; })) {
    out.push_back({m->to, c.start, c.end});
    return;
  }
  if (const LowerMulti* m =
          find(kLowerMulti, kLowerMultiCount, c.cp, [](const LowerMulti& e) { return e.from; })) {
    for (char32_t t : m->to)
      if (t) out.push_back({t, c.start, c.end});
    return;
  }
  out.push_back(c);
}

Chars nfd(const Chars& in) {
  Chars out;
  out.reserve(in.size());
  for (const Char& c : in) append_decomposed(c, out);
  // Canonical ordering: each run of non-starters sorted by combining class, stably
  // (O(n log n) even for a hostile run of a million marks).
  for (size_t i = 0; i < out.size();) {
    if (combining_class(out[i].cp) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && combining_class(out[j].cp) != 0) ++j;
    if (j - i > 1)
      std::stable_sort(out.begin() + i, out.begin() + j, [](const Char& a, const Char& b) {
        return combining_class(a.cp) < combining_class(b.cp);
      });
    i = j;
  }
  return out;
}

Chars nfc(const Chars& in) {
  Chars d = nfd(in);
  if (d.empty()) return d;
  // The Unicode standard's composition: a character joins the last starter unless a
  // character between them blocks it (class 0, or a class not below its own).
  size_t starter = 0;
  int last_class = combining_class(d[0].cp);
  if (last_class != 0) last_class = 256;  // no starter yet
  size_t kept = 1;
  for (size_t i = 1; i < d.size(); ++i) {
    const Char c = d[i];
    const int cls = combining_class(c.cp);
    const char32_t composite = last_class == 256 ? 0 : compose(d[starter].cp, c.cp);
    if (composite && (last_class < cls || last_class == 0)) {
      Char& s = d[starter];
      s = {composite, std::min(s.start, c.start), std::max(s.end, c.end)};
      continue;
    }
    if (cls == 0) {
      starter = kept;
      last_class = 0;
    } else if (last_class != 256) {
      last_class = cls;
    }
    d[kept++] = c;
  }
  d.resize(kept);
  return d;
}

}  // namespace vitrel::text
