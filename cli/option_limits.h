// Limits of the numeric options, derived from what the tool and this machine can do rather than
// typed in: the kernel library's configurations (m-blocks, tiles), the plugin ABI's grid range,
// this machine's hardware threads, the longest wait poll() can express. Each limit is a CLI11
// validator, so a bad value is refused while the command line is parsed, before any work starts:
// exit 2 with one line naming the option, the value and what was expected.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

namespace tc::cli {

// Grid sizes (--sms) a Marlin-style kernel can be launched with: the plugin ABI's range for
// tc_problem.sms (kernel/src/host_api.cu refuses more). One block per SM, so no GPU comes close.
constexpr int kMaxGridSize = 65535;

int max_m_blocks();              // the largest m_blocks among the library's configurations
std::string library_tiles();     // the library's tile shapes N x K, e.g. "128x128, 256x64"
unsigned max_judge_threads();    // this machine's hardware threads (at least 1)
double max_timeout_seconds();    // the longest wait poll() can express (INT_MAX ms, 24.8 days)

// --sms: min_sms..kMaxGridSize (min_sms 0 where 0 means "every multiprocessor").
CLI::Validator grid_size(int min_sms);
// --m-blocks: 1..max_m_blocks().
CLI::Validator library_m_blocks();
// --tile NxK: one of the library's tile shapes.
CLI::Validator library_tile();
// --threads: 0 (one per hardware thread) .. max_judge_threads().
CLI::Validator judge_threads();
// Timeouts in seconds: finite, up to max_timeout_seconds(); zero allowed where it means "derived".
CLI::Validator timeout_seconds(bool zero_allowed);
// A problem dimension (bench -M/-N/-K): zero allowed where it means "derived", else a positive
// multiple of `multiple`; the product limits are checked by check_problem_size.
CLI::Validator dimension(bool zero_allowed, int multiple);

// The operands of an M x N x K problem must be indexable by the plugin ABI's int sizes: each of
// M*K, K*N and M*N at most INT_MAX elements. Throws tc::Error naming the product.
void check_problem_size(long long M, long long N, long long K);

}  // namespace tc::cli
