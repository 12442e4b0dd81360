#include "tilecheck/reference/quantize.h"

#include <algorithm>
#include <cmath>

#include "tilecheck/core/error.h"

namespace tc {

void validate_weights(const QuantizedWeights& w) {
  validate_group(w.group, w.K());
  require(w.K() > 0 && w.N() > 0, "codes are (", w.K(), ", ", w.N(), "); expected a non-empty (K, N)");
  const int G = scale_rows(w.K(), w.group);
  require(w.scales.rows() == G && w.scales.cols() == w.N(), "scales are (", w.scales.rows(), ", ",
          w.scales.cols(), "); expected (", G, ", ", w.N(), ") for K=", w.K(), " group=", w.group);
  std::uint8_t largest = 0;  // a vectorized scan first: a large layer has 10^8 codes
  for (Eigen::Index i = 0; i < w.codes.size(); ++i) largest = std::max(largest, w.codes.data()[i]);
  if (largest <= 15) return;
  for (Eigen::Index k = 0; k < w.codes.rows(); ++k)
    for (Eigen::Index n = 0; n < w.codes.cols(); ++n)
      require(w.codes(k, n) <= 15, "code ", int(w.codes(k, n)), " at (", k, ", ", n,
              ") is out of range (expected 0..15)");
}

QuantizedWeights quantize(const F64Matrix& W, int group) {
  const int K = static_cast<int>(W.rows());
  const int N = static_cast<int>(W.cols());
  require(K > 0 && N > 0, "W is (", K, ", ", N, "); expected a non-empty (K, N)");
  validate_group(group, K);
  const int rows_per_group = is_per_column(group) ? K : group;
  QuantizedWeights q;
  q.group = group;
  q.codes.resize(K, N);
  q.scales.resize(scale_rows(K, group), N);
  for (int g = 0; g < q.scales.rows(); ++g) {
    for (int n = 0; n < N; ++n) {
      double max_abs = 0.0;
      for (int k = g * rows_per_group; k < (g + 1) * rows_per_group; ++k)
        max_abs = std::max(max_abs, std::fabs(W(k, n)));
      const half_bits s = round_to_half(max_abs > 0.0 ? max_abs * 2.0 / 15.0 : 1.0);
      q.scales(g, n) = s;
      const double sd = half_to_double(s);
      for (int k = g * rows_per_group; k < (g + 1) * rows_per_group; ++k) {
        const double code = std::nearbyint(W(k, n) / sd) + kZeroPoint;
        q.codes(k, n) = static_cast<std::uint8_t>(std::clamp(code, 0.0, 15.0));
      }
    }
  }
  return q;
}

}  // namespace tc
