#include "tilecheck/reference/shape.h"

#include "tilecheck/core/error.h"

namespace tc {

void validate_group(int group, int K) {
  require(group == 32 || group == 64 || group == 128 || group == kPerColumn, "group size ", group,
          " is not supported (expected 32, 64, 128 or -1 for per-column scales)");
  require(is_per_column(group) || K % group == 0, "K=", K, " is not a multiple of the group size ",
          group);
}

void validate_shape(const Shape& s) {
  require(s.M > 0, "M=", s.M, " must be positive");
  require(s.N > 0, "N=", s.N, " must be positive");
  require(s.K > 0, "K=", s.K, " must be positive");
  require(s.K % 16 == 0, "K=", s.K, " is not a multiple of 16");
  require(s.N % 64 == 0, "N=", s.N, " is not a multiple of 64");
  validate_group(s.group, s.K);
}

int scale_rows(int K, int group) { return is_per_column(group) ? 1 : K / group; }

}  // namespace tc
