#include "tilecheck/reference/matrix.h"

#include <vector>

namespace tc {

F64Matrix to_double(const HalfMatrix& h) {
  static const std::vector<double> table = [] {  // every binary16 value, decoded once
    std::vector<double> t(65536);
    for (int i = 0; i < 65536; ++i) t[i] = half_to_double(static_cast<half_bits>(i));
    return t;
  }();
  F64Matrix out(h.rows(), h.cols());
  const Eigen::Index n = h.size();
#pragma omp parallel for schedule(static) if (n >= (1 << 16))  // a tile is not worth a fork
  for (Eigen::Index i = 0; i < n; ++i) out.data()[i] = table[h.data()[i]];
  return out;
}

HalfMatrix to_half(const F64Matrix& x) {
  return x.unaryExpr([](double v) { return round_to_half(v); });
}

}  // namespace tc
