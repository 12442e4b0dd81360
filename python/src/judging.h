// What the Python module does with the libraries: load a case, make one from a kernel's own inputs,
// judge an output through the judge chain every workflow uses (suite/judge.h), exactly as
// `tilecheck compare` does (cli/cmd_compare.cpp), so a cell gets the same verdict and report.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tilecheck/fixtures/catalogue.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/suite/judge.h"

namespace tc::py {

// A case to judge against: a golden fixture, or one made from a kernel's inputs (make_reference).
struct Case {
  std::shared_ptr<const Fixture> fixture;
  std::string source;  // what the CLI's --fixture would say: the case id, the file, or "synthetic"
};

std::vector<CatalogueEntry> catalogue(const GoldenPaths& paths);
// A catalogue case by id (made on demand into paths.generated_dir when generated), or a fixture file;
// any format of schema v2 (its dtype, code type and act-order are the fixture's spec.format).
Case load(const GoldenPaths& paths, const std::string& id_or_file);

// A case from Marlin-format inputs: A (M, K) fp16, B (K/16, 2N) int32 Marlin-packed, scales (G, N)
// fp16, permuted as the kernel takes them unless `permuted_scales` is false. The reference is the
// exact one (reference_gemm on the default path) under `contract`.
Case make_reference(HalfMatrix A, const PackedMatrix& B, const HalfMatrix& scales, int group, bool permuted_scales,
                    Contract contract);

// `tilecheck compare`'s options, with its defaults: empty config = Marlin's choice for the shape,
// empty contract = the case's, empty schedule = unknown (bounds for any split of K).
struct JudgeOptions {
  std::string config;
  int sms = 1;
  std::string contract;
  std::string schedule;
  std::string error_map;                  // write the error map here ("" = none)
  std::string error_map_elements = "failing";
  std::size_t max_chars = 10000;          // the report's cap
};

struct Result {
  std::shared_ptr<const Judgement> judgement;
  std::string report;  // judgement_report: the CLI's text
};

// The expectation the output is judged against (the chain's first step), for bounds alone.
std::shared_ptr<const Expectation> expectation(const Case& c, const JudgeOptions& o);
// Judges C (M, N), bits of the case's dtype (fp16 or bf16; the Python layer checks the dtype).
// Throws tc::Error for what cannot be judged (a wrong shape, a bad option).
Result judge(const Case& c, const HalfMatrix& C, const JudgeOptions& o);

}  // namespace tc::py
