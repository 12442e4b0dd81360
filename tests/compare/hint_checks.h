// What the hint tests share: a sure FAIL_BOUND, a hint by kind, and assertions that print every
// hint found when they fail.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tilecheck/compare/compare.h"

namespace tc {

// Moves an element just outside its admissible interval: a sure FAIL_BOUND.
inline void push_out(const Expectation& e, HalfMatrix& got, int i, int j) {
  got(i, j) = half_from_key(std::min(e.bounds.key_hi(i, j) + 3, kHalfInfKey - 1));
}

// "kind: text" per hint, one a line.
inline std::string kinds(const std::vector<Hint>& hints) {
  std::string s;
  for (const Hint& h : hints) s += std::string(name(h.kind)) + ": " + h.text + "\n";
  return s;
}

// The first hint of a kind; nullptr when there is none.
inline const Hint* find(const std::vector<Hint>& hints, HintKind kind) {
  for (const Hint& h : hints)
    if (h.kind == kind) return &h;
  return nullptr;
}

}  // namespace tc

#define EXPECT_HINT(c, kind) EXPECT_TRUE(has_hint((c).hints, kind)) << kinds((c).hints)
#define EXPECT_NO_HINT(c, kind) EXPECT_FALSE(has_hint((c).hints, kind)) << kinds((c).hints)
