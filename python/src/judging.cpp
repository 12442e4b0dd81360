#include "judging.h"

#include <filesystem>

#include "tilecheck/compare/errormap.h"
#include "tilecheck/core/error.h"
#include "tilecheck/reference/gemm.h"
#include "tilecheck/reference/marlin_format.h"
#include "tilecheck/suite/cells.h"

namespace tc::py {
namespace {

struct Cellwise {
  Cell cell;
  KernelNumerics numerics;
};

Cellwise cell_for(const Case& c, const JudgeOptions& o) {
  const Fixture& f = *c.fixture;
  require(o.sms >= 1, "sms=", o.sms, " is not a grid size (at least 1)");
  Cellwise w;
  w.cell.case_id = f.spec.id;
  w.cell.config = o.config.empty() ? choose_config(f.spec.shape) : parse_config(o.config);
  w.cell.variant = "python";
  w.cell.sms = o.sms;
  w.cell.contract = o.contract.empty() ? f.spec.contract : parse_contract(o.contract);
  const std::optional<ScheduleKind> schedule =
      o.schedule.empty() ? std::nullopt : std::optional<ScheduleKind>(parse_schedule_kind(o.schedule));
  w.numerics = judged_numerics(std::nullopt, w.cell.contract, schedule);
  return w;
}

Expectation expect(const Case& c, const Cellwise& w) {
  const Fixture& f = *c.fixture;
  return make_expectation(f, w.cell.contract, w.numerics, make_schedule(f.spec.shape, w.cell.config, w.cell.sms),
                          c.source);
}

}  // namespace

std::vector<CatalogueEntry> catalogue(const GoldenPaths& paths) { return load_catalogue(paths.catalogue()).entries; }

Case load(const GoldenPaths& paths, const std::string& id_or_file) {
  std::error_code ec;
  if (std::filesystem::exists(id_or_file, ec))
    return {std::make_shared<const Fixture>(load_fixture_file(paths, id_or_file)), id_or_file};
  const Catalogue catalogue = load_catalogue(paths.catalogue());
  const CatalogueEntry* entry = catalogue.find(id_or_file);
  require(entry != nullptr, "case '", id_or_file, "': no such file, and not a case id of ", paths.catalogue());
  return {std::make_shared<const Fixture>(load_case(paths, id_or_file)), id_or_file};
}

Case make_reference(HalfMatrix A, const PackedMatrix& B, const HalfMatrix& scales, int group, bool permuted_scales,
                    Contract contract) {
  auto f = std::make_shared<Fixture>();
  const Shape shape{static_cast<int>(A.rows()), static_cast<int>(B.cols() / 2), static_cast<int>(A.cols()), group};
  validate_shape(shape);
  require(B.rows() * 16 == A.cols() && B.cols() % 2 == 0, "B_packed is (", B.rows(), ", ", B.cols(),
          "); A (M, K) = (", A.rows(), ", ", A.cols(), ") wants (K/16, 2N) = (", A.cols() / 16, ", 2N)");
  require(scales.rows() == scale_rows(shape.K, group) && scales.cols() == shape.N, "scales are (", scales.rows(),
          ", ", scales.cols(), "), expected (", scale_rows(shape.K, group), ", ", shape.N, ") for K=", shape.K,
          " and group ", group);
  f->spec.id = "synthetic";
  f->spec.shape = shape;
  f->spec.contract = contract;
  f->provenance = current_provenance();
  f->A = std::move(A);
  f->B_marlin = B;
  f->weights.group = group;
  f->weights.codes = unpack_weights(B);
  f->scales_marlin = permuted_scales ? scales : permute_scales(scales, group);
  f->weights.scales = permuted_scales ? unpermute_scales(scales, group) : scales;
  validate_weights(f->weights);
  f->ref = reference_gemm(f->A, f->weights, contract, default_path(shape.M, shape.N, shape.K));
  return {std::move(f), "synthetic"};
}

std::shared_ptr<const Expectation> expectation(const Case& c, const JudgeOptions& o) {
  return std::make_shared<const Expectation>(expect(c, cell_for(c, o)));
}

Result judge(const Case& c, const HalfMatrix& C, const JudgeOptions& o) {
  const Fixture& f = *c.fixture;
  require(C.rows() == f.spec.shape.M && C.cols() == f.spec.shape.N, "C is (", C.rows(), ", ", C.cols(),
          "), case ", f.spec.id, " is (M, N) = (", f.spec.shape.M, ", ", f.spec.shape.N, ")");
  const Cellwise w = cell_for(c, o);
  const GuardBand none;
  const std::string clean;
  auto j = std::make_shared<Judgement>(judge(expect(c, w), w.cell, case_family(f.spec), {C, none, clean}));
  ReportOptions report_options;
  report_options.max_chars = o.max_chars;
  if (!o.error_map.empty()) {
    write_error_map(o.error_map, j->expectation, j->comparison, {parse_error_map_elements(o.error_map_elements)});
    report_options.error_map = o.error_map;
  }
  Result r;
  r.report = judgement_report(*j, report_options);
  r.judgement = std::move(j);
  return r;
}

}  // namespace tc::py
