// The options of `tilecheck bench` (cmd_bench.cpp), shared with the code that starts one process per
// configuration (bench_children.h).
#pragma once
#include <string>
#include <vector>

namespace tc::cli {

struct BenchOptions {
  std::vector<std::string> kernels;  // empty: default_kernel_library() (data_paths.h)
  int M = 0;       // 0: 16 * m_blocks of each configuration
  int sms = 0;     // 0: every multiprocessor
  int rounds = 1;
  int K = 8192, N = 8192;
  std::vector<std::string> configs;  // empty: every configuration of the library; "auto": the library chooses
  int group = 128;                   // the scale group of --config auto
  std::string contract = "fp32";
  int repeats = 20;
  int rotate_mb = 512;
  bool cublas = true;
  double config_timeout = 300;  // seconds for one configuration's process
  bool isolated = false;        // this process times its configurations itself (a child of bench)
  bool header = true;           // print the header (children after the first do not)
};

}  // namespace tc::cli
