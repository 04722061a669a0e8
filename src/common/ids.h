#pragma once
// Public string ids of enums (API, CLI, page, files): one table per enum, next to the
// enum, and one set of lookups for all of them.
//
//   enum class Threshold { Mean, Otsu };
//   inline constexpr IdName<Threshold> kThresholdNames[] = {{Threshold::Mean, "mean"},
//                                                           {Threshold::Otsu, "otsu"}};
//   constexpr IdTable<IdName<Threshold>> id_table(Threshold) { return {"threshold",
//   kThresholdNames}; }
//
//   to_id(Threshold::Otsu) == "otsu";  from_id<Threshold>("mean") == Threshold::Mean;
//   all_values<Threshold>() == {Mean, Otsu} (table order; the JS lists keep it).
// An unknown id throws InputError: `threshold: unknown id "x" (valid: mean, otsu)`.
// The table's entry type may carry more than the id (the method registry's MethodInfo):
// it needs a `value` and an `id` member.

#include <cstddef>
#include <string>
#include <vector>

#include "common/errors.h"

namespace vitrel {

template <class E>
struct IdName {
  E value;
  const char* id;
};

template <class Entry>
class IdTable {
 public:
  using Value = decltype(Entry::value);

  template <std::size_t N>
  constexpr IdTable(const char* what, const Entry (&entries)[N])
      : what_(what), entries_(entries), size_(N) {}

  const Entry* begin() const { return entries_; }
  const Entry* end() const { return entries_ + size_; }

  // The entry of `v`; InputError for a value outside the table (e.g. an integer cast).
  const Entry& entry(Value v) const {
    for (const Entry& e : *this)
      if (e.value == v) return e;
    throw InputError(std::string(what_) + ": unknown value " +
                     std::to_string(static_cast<long long>(v)));
  }

  const Entry& entry(const std::string& id) const {
    for (const Entry& e : *this)
      if (id == e.id) return e;
    std::string valid;
    for (const Entry& e : *this) valid += (valid.empty() ? "" : ", ") + std::string(e.id);
    throw InputError(std::string(what_) + ": unknown id \"" + id + "\" (valid: " + valid + ")");
  }

 private:
  const char* what_;
  const Entry* entries_;
  std::size_t size_;
};

// The lookups, for any enum E with an id_table(E) found by argument-dependent lookup.
template <class E>
const char* to_id(E v) {
  return id_table(v).entry(v).id;
}

template <class E>
E from_id(const std::string& id) {
  return id_table(E{}).entry(id).value;
}

template <class E>
std::vector<E> all_values() {
  std::vector<E> out;
  for (const auto& e : id_table(E{})) out.push_back(e.value);
  return out;
}

}  // namespace vitrel
