// The reference GEMM's three paths: `exact` (proven float64 + 128-bit fallback) equals `scalar` (the
// 128-bit definition) bit for bit on random and adversarial inputs, with both of its halves used;
// `float64` stays within its own rounding error.
#include "tilecheck/reference/gemm.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "tilecheck/reference/bound.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm_weight_table.h"
#include "tilecheck/reference/rng.h"
#include "common/test_inputs.h"

namespace tc {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string hex(half_bits h) {
  char text[8];
  std::snprintf(text, sizeof text, "0x%04x", h);
  return text;
}

// Every dataset equal bit for bit; else the first difference.
::testing::AssertionResult BitwiseEqual(const ReferenceOutput& got, const ReferenceOutput& want) {
  for (Eigen::Index i = 0; i < want.expected.rows(); ++i) {
    for (Eigen::Index j = 0; j < want.expected.cols(); ++j) {
      if (!same_bits(got.y_exact(i, j), want.y_exact(i, j)) || !same_bits(got.S(i, j), want.S(i, j)) ||
          got.expected(i, j) != want.expected(i, j)) {
        return ::testing::AssertionFailure()
               << "first difference at (" << i << ", " << j << "): y " << got.y_exact(i, j) << " vs "
               << want.y_exact(i, j) << ", S " << got.S(i, j) << " vs " << want.S(i, j) << ", expected "
               << hex(got.expected(i, j)) << " vs " << hex(want.expected(i, j));
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// Inputs by kind: what makes the float64 proof hold, fail, or meet special values.
enum class Kind { normal, cancellation, wide_range, wild_scales, specials };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::normal: return "normal";
    case Kind::cancellation: return "cancellation";
    case Kind::wide_range: return "wide_range";
    case Kind::wild_scales: return "wild_scales";
    case Kind::specials: return "specials";
  }
  return "?";
}

struct Case {
  Kind kind;
  int M, N, K, group;
};

std::string case_name(const Case& c) {
  return std::string(kind_name(c.kind)) + "_m" + std::to_string(c.M) + "n" + std::to_string(c.N) + "k" +
         std::to_string(c.K) + (c.group < 0 ? std::string("gcol") : "g" + std::to_string(c.group));
}

// A finite fp16 value with uniformly random bits: every exponent from 2^-24 to 65504 equally likely.
half_bits random_finite(const CounterRng& rng, std::uint64_t index) {
  const auto h = static_cast<half_bits>(rng.integer(index, 0, 0xFFFF));
  return is_finite(h) ? h : static_cast<half_bits>(h & 0x83FF);  // Inf/NaN patterns -> subnormals
}

struct Inputs {
  HalfMatrix A;
  QuantizedWeights w;
};

Inputs make_inputs(const Case& c, std::uint64_t seed) {
  Inputs in{test_support::normal_half(c.M, c.K, seed, "A"), test_support::normal_weights(c.K, c.N, c.group, seed)};
  const CounterRng rng(seed, "adversarial");
  switch (c.kind) {
    case Kind::normal: break;
    case Kind::cancellation:  // second half of K repeats the first with A negated: y* = 0, S large
      for (int i = 0; i < c.M; ++i)
        for (int k = 0; k < c.K / 2; ++k) in.A(i, c.K / 2 + k) = static_cast<half_bits>(in.A(i, k) ^ 0x8000);
      for (int k = 0; k < c.K / 2; ++k) in.w.codes.row(c.K / 2 + k) = in.w.codes.row(k);
      if (!is_per_column(c.group)) {  // the scales must repeat too
        const Eigen::Index half = in.w.scales.rows() / 2;
        for (Eigen::Index g = 0; g < half; ++g) in.w.scales.row(half + g) = in.w.scales.row(g);
      }
      for (int j = 0; j < c.N; j += 3) in.w.codes(c.K - 1, j) ^= 1;  // some columns nearly cancel
      break;
    case Kind::wide_range:  // even rows: fp16's top binade and one 2^-24; odd rows stay normal
      for (int i = 0; i < c.M; i += 2) {
        for (int k = 0; k < c.K; ++k)
          in.A(i, k) = static_cast<half_bits>(rng.integer(i * c.K + k, 0x7800, 0x7BFF) | (k % 2 ? 0x8000 : 0));
        in.A(i, i) = 0x0001;
      }
      break;
    case Kind::wild_scales:  // even columns: scales anywhere in fp16's finite range, some overflowing
      for (Eigen::Index g = 0; g < in.w.scales.rows(); ++g)
        for (int j = 0; j < c.N; j += 2) in.w.scales(g, j) = random_finite(rng, g * c.N + j);
      break;
    case Kind::specials:  // Inf and NaN in row 0 of A and in three columns' scales
      for (int n = 0; n < 3; ++n) {
        const half_bits special[] = {kHalfPosInf, kHalfNegInf, kHalfCanonicalNan};
        in.A(0, rng.integer(2 * n, 0, c.K - 1)) = special[n];
        in.w.scales(rng.integer(2 * n + 1, 0, in.w.scales.rows() - 1), 7 + 10 * n) = special[(n + 1) % 3];
      }
      break;
  }
  return in;
}

// Sets TC_REFERENCE_SIMD for one scope (gemm.h), so each register tile can be tested on any CPU that has it.
class ScopedSimd {
 public:
  explicit ScopedSimd(const char* name) { setenv("TC_REFERENCE_SIMD", name, 1); }
  ~ScopedSimd() { unsetenv("TC_REFERENCE_SIMD"); }
};

bool cpu_has(const std::string& simd) {
  __builtin_cpu_init();
  if (simd == "avx512") return __builtin_cpu_supports("avx512f");
  if (simd == "avx2") return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return true;
}

class ExactVsScalar : public ::testing::TestWithParam<Case> {};

TEST_P(ExactVsScalar, BitwiseEqualWithTheProofUsed) {
  const Case c = GetParam();
  for (std::uint64_t seed : {1, 2}) {
    const Inputs in = make_inputs(c, seed);
    for (Contract contract : {Contract::marlin, Contract::fp32}) {
      GemmCounts counts;
      const ReferenceOutput fast = reference_gemm(in.A, in.w, contract, GemmPath::exact, &counts);
      const ReferenceOutput scalar = reference_gemm(in.A, in.w, contract, GemmPath::scalar);
      ASSERT_TRUE(BitwiseEqual(fast, scalar)) << "seed " << seed << " contract " << name(contract);
      EXPECT_EQ(counts.float64_elements + counts.fixed_point_elements, std::int64_t{c.M} * c.N);
      EXPECT_GT(counts.float64_elements, 0);
      if (c.kind == Kind::normal || c.kind == Kind::cancellation || (c.kind == Kind::wild_scales && c.group < 0)) {
        EXPECT_EQ(counts.fixed_point_elements, 0);  // per-column scales do not enter the sums
      } else {
        EXPECT_GT(counts.fixed_point_elements, 0);
      }
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (Kind kind : {Kind::normal, Kind::cancellation, Kind::wide_range, Kind::wild_scales, Kind::specials}) {
    for (int group : {32, 64, 128}) out.push_back({kind, 5, 128, 512, group});
    // integer weights leave room up to S = 2^28 at a row grid of 2^-24: only deep K exceeds it
    out.push_back({kind, 5, 128, kind == Kind::wide_range ? 4096 : 512, kPerColumn});
  }
  out.push_back({Kind::normal, 17, 320, 1024, 128});   // M, N and K past one register tile, panel and block
  out.push_back({Kind::normal, 1, 64, 16, kPerColumn});  // the smallest shape
  out.push_back({Kind::normal, 33, 192, 2064, kPerColumn});      // K past a panel by one k-tile
  out.push_back({Kind::cancellation, 3, 64, 2112, 64});           // ... by one group
  return out;
}

INSTANTIATE_TEST_SUITE_P(Inputs, ExactVsScalar, ::testing::ValuesIn(cases()),
                         [](const auto& test_info) { return case_name(test_info.param); });

TEST(RegisterTiles, EveryTileTheCpuHasGivesTheScalarPathsBits) {
  int tested = 0;
  for (const char* simd : {"avx512", "avx2", "baseline"}) {
    if (!cpu_has(simd)) continue;
    const ScopedSimd scoped(simd);
    for (const Case& c : {Case{Kind::normal, 17, 320, 1024, 128}, Case{Kind::wide_range, 5, 128, 512, 32},
                          Case{Kind::specials, 5, 128, 512, kPerColumn}, Case{Kind::cancellation, 3, 64, 2112, 64}}) {
      const Inputs in = make_inputs(c, 3);
      GemmCounts counts;
      const ReferenceOutput fast = reference_gemm(in.A, in.w, Contract::marlin, GemmPath::exact, &counts);
      EXPECT_STREQ(counts.simd, simd);
      EXPECT_GT(counts.float64_elements, 0);
      ASSERT_TRUE(BitwiseEqual(fast, reference_gemm(in.A, in.w, Contract::marlin, GemmPath::scalar)))
          << simd << " " << case_name(c);
    }
    ++tested;
  }
  EXPECT_GE(tested, 1);
}

TEST(RegisterTiles, AnUnknownTileNameIsAnError) {
  const ScopedSimd scoped("avx1024");
  const Inputs in = make_inputs({Kind::normal, 1, 64, 16, kPerColumn}, 1);
  try {
    reference_gemm(in.A, in.w, Contract::fp32, GemmPath::exact);
    FAIL() << "no error for TC_REFERENCE_SIMD=avx1024";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "TC_REFERENCE_SIMD=avx1024 is unknown (expected avx512, avx2 or baseline)");
  }
}

// The float64 path differs from the exact one by at most its own rounding error, gamma_K(2^-53) * S,
// and the expected outputs agree except where that error straddles a rounding boundary.
TEST(Float64Path, AgreesWithExactWithinItsOwnError) {
  for (const Case& c : {Case{Kind::wide_range, 9, 128, 1024, 32}, Case{Kind::normal, 33, 64, 1024, 128},
                        Case{Kind::wide_range, 5, 256, 512, kPerColumn}}) {
    const Inputs in = make_inputs(c, 5);
    for (Contract contract : {Contract::marlin, Contract::fp32}) {
      const ReferenceOutput exact = reference_gemm(in.A, in.w, contract, GemmPath::exact);
      const ReferenceOutput f64 = reference_gemm(in.A, in.w, contract, GemmPath::float64);
      for (int i = 0; i < c.M; ++i) {
        for (int j = 0; j < c.N; ++j) {
          const double tolerance = gamma(c.K, 0x1p-53) * exact.S(i, j);
          const std::string at = case_name(c) + " (" + std::to_string(i) + ", " + std::to_string(j) + ")";
          ASSERT_LE(std::fabs(exact.y_exact(i, j) - f64.y_exact(i, j)), tolerance) << at;
          ASSERT_NEAR(exact.S(i, j), f64.S(i, j), tolerance) << at;
          if (!is_nan(exact.expected(i, j))) {
            ASSERT_LE(ulp_distance(exact.expected(i, j), f64.expected(i, j)), 1u) << at;
          }
        }
      }
    }
  }
}

// A sum double cannot hold: 2 * 65504 * 14336 (about 2^30.8) plus 2^-24 * 2^-24 = 2^-48 needs 79 bits.
TEST(ExactPath, KeepsEveryBitThatDoubleWouldLose) {
  const int K = 64, N = 64;
  HalfMatrix A = HalfMatrix::Zero(1, K);
  QuantizedWeights w;
  w.group = 32;
  w.codes = CodeMatrix::Constant(K, N, 8);  // w^ = 0 except the three codes below
  w.scales = HalfMatrix::Constant(2, N, round_to_half(2048.0));
  w.scales(1, 0) = 0x0001;                  // group 1 of column 0: scale 2^-24
  A(0, 0) = A(0, 1) = round_to_half(65504.0);
  w.codes(0, 0) = w.codes(1, 0) = 15;       // w^ = 7 * 2048 = 14336
  A(0, 40) = 0x0001;
  w.codes(40, 0) = 9;                       // w^ = 2^-24
  const double big = 2 * 65504.0 * 14336.0;
  for (GemmPath path : {GemmPath::exact, GemmPath::scalar}) {
    GemmCounts counts;
    const ReferenceOutput r = reference_gemm(A, w, Contract::fp32, path, &counts);
    EXPECT_EQ(r.y_exact(0, 0), std::nextafter(big, INFINITY));  // round-to-odd keeps the sticky bit
    EXPECT_EQ(r.S(0, 0), r.y_exact(0, 0));
    EXPECT_EQ(r.expected(0, 0), kHalfPosInf);
    EXPECT_EQ(counts.fixed_point_elements, path == GemmPath::exact ? 1 : N);  // only column 0 fails the proof
  }
  const ReferenceOutput e = reference_gemm(A, w, Contract::fp32, GemmPath::float64);
  EXPECT_EQ(e.y_exact(0, 0), big);  // double alone loses the 2^-48
}

// The proof's boundary: with row grid 2^-24 and integer (per-column) weights, S = 2^28 is proven
// exact and S = 2^28 + 1 is not (although that sum, too, happens to fit a double).
TEST(ExactPath, ProvesExactlyUpToTwoToThe52TimesTheGrid) {
  const int K = 1056, N = 64;
  QuantizedWeights w;
  w.group = kPerColumn;
  w.codes = CodeMatrix::Constant(K, N, 8);  // w^ = q - 8 = 0
  w.scales = HalfMatrix::Constant(1, N, round_to_half(1.0));
  HalfMatrix A = HalfMatrix::Zero(1, K);
  A(0, 0) = 0x0001;  // 2^-24 (times a zero weight): the row's grid
  for (int k = 1; k <= 1024; ++k) {
    A(0, k) = round_to_half(32768.0);
    w.codes(k, 0) = w.codes(k, 1) = 0;  // w^ = -8: 1024 products of 2^18, S = 2^28
  }
  A(0, 1025) = round_to_half(1.0);
  w.codes(1025, 1) = 9;  // column 1: one more product of 1, S = 2^28 + 1
  GemmCounts counts;
  const ReferenceOutput fast = reference_gemm(A, w, Contract::fp32, GemmPath::exact, &counts);
  EXPECT_EQ(counts.fixed_point_elements, 1);
  EXPECT_EQ(fast.y_exact(0, 0), -0x1p28);
  EXPECT_EQ(fast.y_exact(0, 1), -0x1p28 + 1);
  EXPECT_EQ(fast.S(0, 1), 0x1p28 + 1);
  EXPECT_TRUE(BitwiseEqual(fast, reference_gemm(A, w, Contract::fp32, GemmPath::scalar)));
}

// Every decoder (each instruction set's) on every fp16 scale and code: one-hot rows of A pick
// y(i, j) = w^(code i, scale j), proven exact, so y is the decoded weight itself. Columns with an
// Inf or NaN weight go to the 128-bit sums (0 * Inf of the other rows makes them NaN there).
TEST(RegisterTiles, EveryDecoderGivesTheRoundingFunctionsWeightForEveryScale) {
  const int N = 65536, K = 32;
  QuantizedWeights w;
  w.group = 32;
  w.codes = CodeMatrix::Constant(K, N, 8);
  for (int q = 0; q < 16; ++q) w.codes.row(q).setConstant(static_cast<std::uint8_t>(q));
  w.scales.resize(1, N);
  for (int j = 0; j < N; ++j) w.scales(0, j) = static_cast<half_bits>(j);
  HalfMatrix A = HalfMatrix::Zero(16, K);
  for (int i = 0; i < 16; ++i) A(i, i) = round_to_half(1.0);
  std::int64_t finite_columns = 0;
  for (int j = 0; j < N; ++j) finite_columns += weight_table(static_cast<half_bits>(j), 32).finite ? 1 : 0;
  for (const char* simd : {"avx512", "avx2", "baseline"}) {
    if (!cpu_has(simd)) continue;
    const ScopedSimd scoped(simd);
    GemmCounts counts;
    const ReferenceOutput r = reference_gemm(A, w, Contract::fp32, GemmPath::exact, &counts);
    EXPECT_EQ(counts.float64_elements, 16 * finite_columns) << simd;
    for (int j = 0; j < N; ++j) {
      if (!weight_table(static_cast<half_bits>(j), 32).finite) continue;
      for (int q = 0; q < 16; ++q)
        ASSERT_EQ(r.y_exact(q, j), half_to_double(dequantized_weight(q, static_cast<half_bits>(j), 32)))
            << simd << " code " << q << " scale " << hex(static_cast<half_bits>(j));
    }
  }
}

TEST(Specials, InfinityTimesZeroWeightIsNanAndInfinityPropagates) {
  const int K = 16, N = 64;
  HalfMatrix A = HalfMatrix::Constant(2, K, round_to_half(1.0));
  A(0, 3) = kHalfPosInf;
  QuantizedWeights w;
  w.codes = CodeMatrix::Constant(K, N, 9);
  w.codes(3, 0) = 8;  // zero weight under the Inf: NaN in column 0
  w.scales = HalfMatrix::Constant(1, N, round_to_half(1.0));
  w.group = -1;
  for (GemmPath path : {GemmPath::exact, GemmPath::scalar, GemmPath::float64}) {
    const ReferenceOutput r = reference_gemm(A, w, Contract::fp32, path);
    EXPECT_TRUE(is_nan(r.expected(0, 0)));
    EXPECT_EQ(r.expected(0, 1), kHalfPosInf);
    EXPECT_EQ(half_to_double(r.expected(1, 0)), 15.0);  // 15 * 1 + 1 * 0
    EXPECT_EQ(half_to_double(r.expected(1, 1)), 16.0);
  }
}

TEST(ReferenceGemm, RejectsMismatchedInputs) {
  const QuantizedWeights w = test_support::normal_weights(128, 64, 32, 1);
  for (GemmPath path : {GemmPath::exact, GemmPath::scalar}) {
    EXPECT_THROW(reference_gemm(HalfMatrix::Zero(4, 64), w, Contract::fp32, path), Error);
    EXPECT_THROW(reference_gemm(HalfMatrix::Zero(0, 128), w, Contract::fp32, path), Error);
    QuantizedWeights bad = w;
    bad.scales.resize(2, 64);
    EXPECT_THROW(reference_gemm(HalfMatrix::Zero(4, 128), bad, Contract::fp32, path), Error);
  }
}

}  // namespace
}  // namespace tc
