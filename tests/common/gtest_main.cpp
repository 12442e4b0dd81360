// main() for tilecheck's GoogleTest programs. Its exit status speaks for the whole process, so a
// ctest that runs many cases in one process (the GPU matrix) reports it truthfully: 1 if any test
// failed, 77 if every test that ran was skipped or none ran (ctest's SKIP_RETURN_CODE), 0 otherwise. A skip
// pattern matched against the output (SKIP_REGULAR_EXPRESSION) would instead mark a process that
// skipped one cell and failed another as Skipped.
//
// Under ctest's resource allocation (ctest --resource-spec-file, GPU tests ask for "gpus:1") the
// process runs on the GPU that ctest gave it: CTEST_RESOURCE_GROUP_0_GPUS="id:1,slots:1" becomes
// CUDA_VISIBLE_DEVICES=1 before anything touches CUDA.
//
// ctest runs test programs side by side (-j), so each one's OpenMP regions run on one thread unless
// OMP_NUM_THREADS says otherwise: N programs with N threads each, spinning at every barrier, made a
// matrix process 3x slower beside three others on 2 cores (39.4 s against 11.9 s); the test presets
// set OMP_NUM_THREADS=1 for the scripts and notebooks too (CPU tests 153 s against 116 s).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdlib>
#include <string>

namespace {

void use_the_gpu_ctest_gave() {
  const char* given = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (given == nullptr) return;
  const std::string text = given;
  const std::size_t id = text.find("id:");
  if (id == std::string::npos) return;
  const std::size_t end = text.find(',', id);
  setenv("CUDA_VISIBLE_DEVICES", text.substr(id + 3, end == std::string::npos ? end : end - id - 3).c_str(), 1);
}

}  // namespace

int main(int argc, char** argv) {
  use_the_gpu_ctest_gave();
  if (std::getenv("OMP_NUM_THREADS") == nullptr) omp_set_num_threads(1);
  ::testing::InitGoogleTest(&argc, argv);
  if (RUN_ALL_TESTS() != 0) return 1;
  if (::testing::GTEST_FLAG(list_tests)) return 0;
  // No test selected (a configuration the library does not offer) counts as all skipped: a process
  // that checked nothing must not pass.
  const ::testing::UnitTest& u = *::testing::UnitTest::GetInstance();
  return u.skipped_test_count() == u.test_to_run_count() ? 77 : 0;
}
