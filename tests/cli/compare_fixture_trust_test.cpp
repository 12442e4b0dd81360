// `tilecheck compare --fixture F.h5` on fixtures that cannot be trusted (docs/fixtures-schema.md,
// "What a load verifies"): copies of a committed fixture, each changed in one way through HDF5, are
// refused with exit 2 and a one-line reason naming the file and the problem, before any verdict;
// the file given is left exactly as it was.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "common/file_bytes.h"
#include "common/run_command.h"
#include "common/temp_dir.h"
#include "fixtures/h5_mutate.h"
#include "tilecheck/fixtures/fixture.h"
#include "tilecheck/fixtures/golden.h"
#include "tilecheck/reference/marlin_format.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCase = "normal_m16_n128_k128_g64_marlin";  // committed, 16 x 128 x 128

std::string committed() { return default_golden_paths().golden_dir() + "/" + kCase + ".h5"; }

// Reads a dataset of fp16, changes it, writes it back.
void change_half(const std::string& path, const std::string& group, const std::string& name,
                 const std::function<void(HalfMatrix&)>& change) {
  Mutable m(path);
  HalfMatrix x = h5::read_half_matrix(m.root(), "/" + group + "/" + name);
  change(x);
  m.remove("/" + group + "/" + name);
  h5::write_half_matrix(m.group(group), name, x);
}

struct Tampering {
  std::string name;
  std::string case_id;  // written into the copy; "" keeps the catalogue's id (and the file is named after it)
  std::function<void(const std::string& path)> change;
  std::vector<std::string> reason;  // on the first line of stderr
};

std::vector<Tampering> tamperings() {
  return {
      {"expected_changed", "my_case",
       [](const std::string& p) { change_half(p, "ref", "expected", [](HalfMatrix& x) { x(3, 5) ^= 0x4000; }); },
       {"/ref/expected", "contradicts the fixture's own inputs: element (3, 5) stored", "recomputed"}},
      {"y_exact_changed", "my_case",
       [](const std::string& p) {
         Mutable m(p);
         F64Matrix y = h5::read_matrix<double>(m.root(), "/ref/y_exact");
         y(0, 1) = -y(0, 1) + 1;
         m.remove("/ref/y_exact");
         h5::write_matrix(m.group("ref"), "y_exact", y);
       },
       {"/ref/y_exact", "element (0, 1) stored"}},
      {"nan_in_A", "my_case",
       [](const std::string& p) { change_half(p, "inputs", "A", [](HalfMatrix& x) { x(2, 9) = 0x7E00; }); },
       {"/inputs/A", "A(2, 9) is nan", "distribution 'normal' has finite inputs"}},
      {"inf_in_scales", "my_case",
       [](const std::string& p) {
         HalfMatrix scales;
         change_half(p, "inputs", "scales", [&](HalfMatrix& x) {
           x(1, 4) = kHalfPosInf;
           scales = x;
         });
         change_half(p, "inputs", "scales_marlin", [&](HalfMatrix& x) { x = permute_scales(scales, 64); });
       },
       {"/inputs/scales", "scale (1, 4) is inf"}},
      {"code_16", "my_case",
       [](const std::string& p) {
         Mutable m(p);
         CodeMatrix codes = h5::read_matrix<std::uint8_t>(m.root(), "/inputs/codes");
         codes(5, 6) = 16;
         m.remove("/inputs/codes");
         h5::write_matrix(m.group("inputs"), "codes", codes);
       },
       {"/inputs/codes", "code 16 at (5, 6) is out of range (expected 0..15)"}},
      {"case_id_of_another_case", "normal_m17_n128_k128_g128_marlin", [](const std::string&) {},
       {"attribute 'case_id': 'normal_m17_n128_k128_g128_marlin' does not describe the file's attributes"}},
      {"catalogue_case_not_matching_the_manifest", "",
       [](const std::string& p) { change_half(p, "ref", "expected", [](HalfMatrix& x) { x(0, 0) ^= 1; }); },
       {"/ref/expected: payload does not match the manifest", "golden regenerate --case " + std::string(kCase)}},
  };
}

void PrintTo(const Tampering& t, std::ostream* os) { *os << t.name; }

class CompareUntrustedFixture : public testing::TestWithParam<Tampering> {};

TEST_P(CompareUntrustedFixture, ExitsTwoNamingTheProblemAndLeavesTheFileAlone) {
  const Tampering& t = GetParam();
  TempDir dir;
  const std::string fixture = dir.file((t.case_id.empty() ? std::string(kCase) : t.name) + ".h5");
  fs::copy_file(committed(), fixture);
  if (!t.case_id.empty()) h5::write_string_attribute(Mutable(fixture).root(), "case_id", t.case_id);
  const std::string output = dir.file("output.h5");
  const Fixture good = load_fixture(committed());
  h5::write_file_atomically(output, [&](h5::File& f) { h5::write_half_matrix(f, "C", good.ref.expected); });
  const std::string command = std::string(TC_TILECHECK) + " compare --fixture " + fixture + " --output " + output;
  if (t.case_id != "normal_m17_n128_k128_g128_marlin") {  // that one is refused as it is
    const test_support::CommandResult before = test_support::run_command(command, dir.path());
    ASSERT_EQ(before.code, 0) << "the unchanged copy passes: " << before.out << before.err;
  }
  t.change(fixture);
  const std::string bytes = file_bytes(fixture);
  const test_support::CommandResult r = test_support::run_command(command, dir.path());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << "no verdict on an untrusted fixture: " << r.out;
  const std::string first = r.err.substr(0, r.err.find('\n'));
  EXPECT_NE(first.find(fixture), std::string::npos) << first;
  for (const std::string& part : t.reason)
    EXPECT_NE(first.find(part), std::string::npos) << first << "\nlacks: " << part;
  EXPECT_TRUE(file_bytes(fixture) == bytes) << "the fixture given was changed";
}

INSTANTIATE_TEST_SUITE_P(Tampered, CompareUntrustedFixture, testing::ValuesIn(tamperings()),
                         [](const testing::TestParamInfo<Tampering>& p) { return p.param.name; });

}  // namespace
}  // namespace tc
