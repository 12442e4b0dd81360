#include "tilecheck/compare/verdict.h"

namespace tc {

std::string_view name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "PASS";
    case Verdict::fail_bound: return "FAIL_BOUND";
    case Verdict::nonfinite: return "NONFINITE";
    case Verdict::unwritten: return "UNWRITTEN";
    case Verdict::guard: return "GUARD";
  }
  return "?";
}

char symbol(Mark m) {
  static constexpr char kSymbols[kMarks] = {'.', '1', 'b', 'X', 'N', 'U', 'G'};
  return kSymbols[static_cast<int>(m)];
}

}  // namespace tc
