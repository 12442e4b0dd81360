// The definition of the reference's sums, one element at a time. Every finite fp16 value is an
// integer number of 2^-24 (|v| < 2^40), so each product is an integer number of 2^-48 below 2^80 and
// a sum of up to 2^20 of them fits a signed 128-bit integer: no rounding until the final conversion,
// which rounds to odd so that the contract's later roundings (to fp32, to fp16) are correct.
#include <cmath>
#include <cstdint>

#include "gemm_parts.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm_weight_table.h"

namespace tc::gemm_parts {
namespace {

__extension__ typedef unsigned __int128 u128;

struct FixedHalf {  // a finite fp16 value as integer * 2^-24, or a special value
  std::int64_t units;
  bool finite;
  double value;
};

FixedHalf fixed(double v) {
  if (!std::isfinite(v)) return {0, false, v};
  return {static_cast<std::int64_t>(std::ldexp(v, 24)), true, v};
}

// Splits a finite fp16 into significand * 2^exponent with |significand| <= 2047.
void split(half_bits h, std::int64_t& significand, int& exponent) {
  const int e = (h >> 10) & 0x1F;
  const std::int64_t m = (h & 0x3FF) + (e ? 1024 : 0);
  significand = (h & 0x8000) ? -m : m;
  exponent = (e ? e : 1) - 25;
}

// Column j of W^ as fixed-point values, one weight table per group.
void fixed_column(const QuantizedWeights& w, int j, std::vector<FixedHalf>& column) {
  const int K = w.K(), group_rows = is_per_column(w.group) ? K : w.group;
  for (int g = 0; g * group_rows < K; ++g) {
    const WeightTable t = weight_table(w.scales(g, j), w.group);
    for (int k = g * group_rows; k < (g + 1) * group_rows; ++k) column[k] = fixed(t.value[w.codes(k, j) & 0xF]);
  }
}

}  // namespace

double round_to_odd(i128 v, int exp2) {
  const bool negative = v < 0;
  u128 a = negative ? -static_cast<u128>(v) : static_cast<u128>(v);
  int shift = 0;
  while ((a >> shift) >= (static_cast<u128>(1) << 53)) ++shift;
  std::uint64_t mantissa = static_cast<std::uint64_t>(a >> shift);
  if (shift > 0 && (a & ((static_cast<u128>(1) << shift) - 1)) != 0) mantissa |= 1;
  const double r = std::ldexp(static_cast<double>(mantissa), exp2 + shift);
  return negative ? -r : r;
}

double times_scale_rounded_to_odd(double y, half_bits scale) {
  int exponent = 0;
  const double fraction = std::frexp(y, &exponent);  // y = fraction * 2^exponent, |fraction| in [0.5, 1)
  const auto significand = static_cast<std::int64_t>(std::ldexp(fraction, 53));  // exact: y has 53 bits
  std::int64_t s = 0;
  int e = 0;
  split(scale, s, e);
  return round_to_odd(static_cast<i128>(significand) * s, exponent - 53 + e);
}

void exact_elements(const HalfMatrix& A, const QuantizedWeights& w, Contract contract,
                    const std::vector<Element>& elements, ReferenceOutput& out) {
  if (elements.empty()) return;
  const int M = static_cast<int>(A.rows()), N = w.N(), K = w.K();
  require(K <= (1 << 20), "K=", K, " is too deep for the exact sums (at most 2^20)");
  std::vector<std::vector<int>> rows_of(N);  // the elements, column by column
  std::vector<int> row_slot(M, -1);
  int rows_used = 0;
  for (const Element& e : elements) {
    rows_of[e.j].push_back(e.i);
    if (row_slot[e.i] < 0) row_slot[e.i] = rows_used++;
  }
  std::vector<FixedHalf> a(static_cast<size_t>(rows_used) * K);
  for (int i = 0; i < M; ++i)
    if (row_slot[i] >= 0)
      for (int k = 0; k < K; ++k) a[size_t(row_slot[i]) * K + k] = fixed(half_to_double(A(i, k)));
  std::vector<int> columns;
  for (int j = 0; j < N; ++j)
    if (!rows_of[j].empty()) columns.push_back(j);

#pragma omp parallel if (elements.size() * static_cast<double>(K) >= (1 << 20))
  {
    std::vector<FixedHalf> wc(K);
#pragma omp for schedule(dynamic)
    for (size_t c = 0; c < columns.size(); ++c) {
      const int j = columns[c];
      fixed_column(w, j, wc);
      for (int i : rows_of[j]) {
        const FixedHalf* ar = &a[size_t(row_slot[i]) * K];
        i128 sum = 0, magnitude = 0;
        double special = 0.0, special_magnitude = 0.0;  // IEEE sum of the non-finite products
        bool any_special = false;
        for (int k = 0; k < K; ++k) {
          if (ar[k].finite && wc[k].finite) {
            const i128 p = static_cast<i128>(ar[k].units) * wc[k].units;
            sum += p;
            magnitude += p < 0 ? -p : p;
          } else {
            const double p = ar[k].value * wc[k].value;
            special += p;
            special_magnitude += std::fabs(p);
            any_special = true;
          }
        }
        double y = round_to_odd(sum, -48);
        double y_scaled = 0.0;
        const half_bits s = w.scales(0, j);
        if (is_per_column(w.group) && is_finite(s)) {
          std::int64_t sig;
          int e;
          split(s, sig, e);
          y_scaled = round_to_odd(sum * sig, -48 + e);
        }
        double S = round_to_odd(magnitude, -48);
        if (any_special) {  // Inf and NaN dominate any finite sum
          y = special;
          S = special_magnitude;
        }
        if (any_special || !is_finite(s)) y_scaled = y * half_to_double(s);
        out.y_exact(i, j) = y;
        out.S(i, j) = S;
        out.expected(i, j) = epilogue(y, y_scaled, s, w.group, contract);
      }
    }
  }
}

}  // namespace tc::gemm_parts
