#include "tilecheck/compare/expectation.h"

#include <utility>

#include "tilecheck/core/error.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/reference/format_gemm.h"

namespace tc {

Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, const KernelNumerics& numerics,
                             ReferenceOutput ref, Schedule schedule, CaseInfo info) {
  const Shape& s = schedule.shape;
  validate_weights(w);
  require(A.rows() == s.M && A.cols() == s.K, "A is (", A.rows(), ", ", A.cols(), ") but the schedule is for M=",
          s.M, " K=", s.K);
  require(w.K() == s.K && w.N() == s.N && w.group == s.group, "weights are K=", w.K(), " N=", w.N(),
          " group=", w.group, " but the schedule is for K=", s.K, " N=", s.N, " group=", s.group);
  const auto check = [&](Eigen::Index rows, Eigen::Index cols, const char* what) {
    require(rows == s.M && cols == s.N, "reference ", what, " is (", rows, ", ", cols, "), expected (", s.M,
            ", ", s.N, ")");
  };
  check(ref.y_exact.rows(), ref.y_exact.cols(), "y_exact");
  check(ref.S.rows(), ref.S.cols(), "S");
  check(ref.expected.rows(), ref.expected.cols(), "expected");
  Expectation e;
  e.info = std::move(info);
  e.contract = contract;
  e.numerics = numerics;
  if (numerics.schedule == ScheduleKind::model) {
    e.bounds = output_bounds(A, w, ref.y_exact, ref.S, numerics.numerics, schedule);
  } else {
    e.max_slices = max_slices_for(s.K, numerics.min_k_slice);
    e.bounds = output_bounds_any_schedule(ref.y_exact, ref.S, w.scales, numerics.numerics, s, e.max_slices);
  }
  e.grid = tile_grid(schedule);
  e.schedule = std::move(schedule);
  e.A = std::move(A);
  e.w = std::move(w);
  e.ref = std::move(ref);
  return e;
}

Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, ReferenceOutput ref,
                             Schedule schedule, CaseInfo info) {
  return make_expectation(std::move(A), std::move(w), contract, contract_default(contract), std::move(ref),
                          std::move(schedule), std::move(info));
}

Expectation make_expectation(HalfMatrix A, QuantizedWeights w, Contract contract, Schedule schedule,
                             CaseInfo info) {
  ReferenceOutput ref = reference_gemm(A, w, contract, default_path(schedule.shape.M, schedule.shape.N,
                                                                     schedule.shape.K));
  return make_expectation(std::move(A), std::move(w), contract, std::move(ref), std::move(schedule),
                          std::move(info));
}

CaseInfo case_info(const Fixture& f, const std::string& source) {
  return CaseInfo{f.spec.id, std::string(name(f.spec.distribution)), f.spec.seed,
                  cat(source.empty() ? "fixture" : source, "; generator ", f.provenance.generator_version, "; rng ",
                      f.provenance.rng),
                  name(f.spec.format)};
}

namespace {

void require_fixture_shape(const Fixture& f, const Schedule& schedule) {
  require(schedule.shape.M == f.spec.shape.M && schedule.shape.N == f.spec.shape.N &&
              schedule.shape.K == f.spec.shape.K && schedule.shape.group == f.spec.shape.group,
          "the schedule's shape (M=", schedule.shape.M, " N=", schedule.shape.N, " K=", schedule.shape.K, " group=",
          schedule.shape.group, ") is not fixture ", f.spec.id, "'s");
}

// A case of a schema v2 format (bf16, zero points, 8-bit codes, act-order) in its dtype: the
// format reference (tc::format_reference_gemm) and the bounds over its weights, walked in the
// kernel's order of K (act-order's perm), docs/numerics.md "Bounds for the served formats".
Expectation format_expectation(const Fixture& f, Contract contract, const KernelNumerics& numerics,
                               Schedule schedule, const std::string& source) {
  require_fixture_shape(f, schedule);
  const FormatWeights w = format_weights(f);
  const Epilogue epilogue = numerics.numerics.epilogue;
  // The expected output depends only on the epilogue, and only for per-column scales.
  ReferenceOutput ref = epilogue_contract(epilogue) == f.spec.contract || !is_per_column(w.group)
                            ? f.ref
                            : format_reference_gemm(f.A, w, epilogue);
  Expectation e;
  e.info = case_info(f, source);
  e.contract = contract;
  e.numerics = numerics;
  e.dtype = w.dtype;
  try {
    if (numerics.schedule == ScheduleKind::model) {
      e.bounds = output_bounds(f.A, w, f.perm, ref.y_exact, ref.S, numerics.numerics, schedule);
    } else {
      e.max_slices = max_slices_for(schedule.shape.K, numerics.min_k_slice);
      e.bounds = output_bounds_any_schedule(ref.y_exact, ref.S, w.scales, w.dtype, numerics.numerics, schedule.shape,
                                            e.max_slices);
    }
  } catch (const Error& error) {
    throw Error(cat("case ", f.spec.id, ": format ", name(f.spec.format), ": ", error.what()));
  }
  e.grid = tile_grid(schedule);
  e.schedule = std::move(schedule);
  e.A = f.A;
  e.w = f.weights;
  e.weight_type = w.type;
  e.zero_points = w.zero_points;
  e.g_idx = w.g_idx;
  e.perm = f.perm;
  e.ref = std::move(ref);
  return e;
}

}  // namespace

Expectation make_expectation(const Fixture& f, Schedule schedule, const std::string& source) {
  if (!is_v1_format(f.spec.format))
    return format_expectation(f, f.spec.contract, contract_default(f.spec.contract), std::move(schedule), source);
  require_fixture_shape(f, schedule);
  return make_expectation(f.A, f.weights, f.spec.contract, f.ref, std::move(schedule), case_info(f, source));
}

Expectation make_expectation(const Fixture& f, Contract contract, Schedule schedule, const std::string& source) {
  if (contract == f.spec.contract) return make_expectation(f, std::move(schedule), source);
  if (!is_v1_format(f.spec.format))
    return format_expectation(f, contract, contract_default(contract), std::move(schedule), source);
  return make_expectation(f.A, f.weights, contract, std::move(schedule), case_info(f, source));
}

Expectation make_expectation(const Fixture& f, Contract contract, const KernelNumerics& numerics, Schedule schedule,
                             const std::string& source) {
  if (!is_v1_format(f.spec.format)) return format_expectation(f, contract, numerics, std::move(schedule), source);
  if (numerics.schedule == ScheduleKind::model && numerics.numerics == contract_numerics(contract)) {
    Expectation e = make_expectation(f, contract, std::move(schedule), source);  // as without a declaration
    e.numerics = numerics;
    return e;
  }
  require_fixture_shape(f, schedule);
  // The expected output depends only on the epilogue, and only for per-column scales.
  const Contract reference = epilogue_contract(numerics.numerics.epilogue);
  ReferenceOutput ref = reference == f.spec.contract || !is_per_column(f.spec.shape.group)
                            ? f.ref
                            : reference_gemm(f.A, f.weights, reference, default_path(f.spec.shape.M, f.spec.shape.N,
                                                                                     f.spec.shape.K));
  return make_expectation(f.A, f.weights, contract, numerics, std::move(ref), std::move(schedule),
                          case_info(f, source));
}

bool Expectation::exact_tier() const { return exact_tier_absent().empty(); }

std::string Expectation::exact_tier_absent() const {
  // Families built so that a correct kernel's output is the expected one bit for bit
  // (docs/numerics.md: "Exact fixtures", "Slice fixtures", "Tie and extreme fixtures").
  const bool slices = info.distribution == "slices";
  const bool bitwise = info.distribution == "exact" || info.distribution == "ties" || info.distribution == "extremes";
  if (!bitwise && !slices) return "not an exact case";
  // The served formats' `extremes` span their dtype's range to test it, not to keep every sum exact.
  if (!v1_format()) return cat("format ", info.format, ": its cases are not built exact in every summation order");
  if (!exact_under(numerics.numerics, contract)) return "the declared numerics round coarser than the case assumes";
  if (slices && numerics.numerics.partials == Partials::fp16 && numerics.schedule != ScheduleKind::model)
    return "fp16 partial sums in an unknown order need not be exact on a slices case";
  return {};
}

std::string Expectation::statistics_tier_absent() const {
  // One rounding event recurs in every element built from the same inputs (bf16-uint8b128 extremes:
  // a correct model kernel's 265 identical errors gave a "bias" of 0.19 ULP; docs/numerics.md, T2).
  const std::string& d = info.distribution;
  if (d.empty() || d == "normal" || d == "specials" || d == "overflow") return {};
  return cat("distribution ", d, ": constructed, its elements repeat inputs, so their errors are not independent");
}

}  // namespace tc
