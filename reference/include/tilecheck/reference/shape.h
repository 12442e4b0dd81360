// Problem shapes and the numbers every part of tilecheck agrees on.
//   A: (M, K) fp16 row-major   codes: (K, N) uint8 in [0,15]   scales: (G, N) fp16   C: (M, N) fp16
//   G = K / group for grouped scales, G = 1 for per-column scales (group = -1).
#pragma once

namespace tc {

constexpr int kZeroPoint = 8;      // code q dequantizes to (q - 8) * s
constexpr int kPerColumn = -1;     // group size value for one scale per output column

struct Shape {
  int M = 0;
  int N = 0;
  int K = 0;
  int group = kPerColumn;  // 32, 64, 128 or -1
};

// Rejects shapes no Marlin-format kernel can take, with a message naming the value:
// sizes > 0, K % 16 == 0, N % 64 == 0, group in {32, 64, 128, -1}, K % group == 0.
void validate_shape(const Shape& shape);
void validate_group(int group, int K);  // the group part alone

int scale_rows(int K, int group);  // G: K / group, or 1 for per-column
inline bool is_per_column(int group) { return group == kPerColumn; }

}  // namespace tc
