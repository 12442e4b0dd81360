// Symmetric 4-bit quantization with zero point 8: code q in [0, 15] stands for (q - 8) * s, with one
// fp16 scale per group of `group` consecutive K rows of one column (32, 64, 128) or per column (-1).
#pragma once
#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/shape.h"

namespace tc {

struct QuantizedWeights {
  int group = kPerColumn;
  CodeMatrix codes;   // (K, N), values 0..15
  HalfMatrix scales;  // (G, N)
  int K() const { return static_cast<int>(codes.rows()); }
  int N() const { return static_cast<int>(codes.cols()); }
};

// Checks codes in range and scales shaped (scale_rows(K, group), N); throws naming the problem.
void validate_weights(const QuantizedWeights& w);

// Quantizes W (K, N): s = RN16(max|w| * 2 / 15) per group (1 where the group is all zero),
// q = clamp(round(w / s) + 8, 0, 15).
QuantizedWeights quantize(const F64Matrix& W, int group);

// The scale that applies to code (k, n).
inline half_bits scale_of(const QuantizedWeights& w, int k, int n) {
  return w.scales(is_per_column(w.group) ? 0 : k / w.group, n);
}

}  // namespace tc
