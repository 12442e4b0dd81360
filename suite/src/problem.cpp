#include "tilecheck/suite/problem.h"

#include "tilecheck/suite/kernel_operands.h"

namespace tc {

tc_contract plugin_contract(Contract c) { return c == Contract::marlin ? TC_CONTRACT_MARLIN : TC_CONTRACT_FP32; }

tc_problem make_problem(const Shape& shape, Contract contract, const Launch& launch, const DeviceOperands& on,
                        const FixtureFormat& format) {
  tc_problem q{};
  q.abi_version = TC_PLUGIN_ABI_VERSION;
  q.M = shape.M, q.N = shape.N, q.K = shape.K, q.group = shape.group;
  q.contract = plugin_contract(contract);
  q.A = on.A, q.B = on.B, q.scales = on.scales, q.C = on.C;
  q.workspace = on.workspace;
  q.workspace_bytes = on.workspace_bytes;
  const TileConfig& c = launch.config;
  if (c.m_blocks != 0) q.config = {c.m_blocks, c.n_blocks, c.k_blocks, c.group_blocks};  // else all zero: automatic
  q.sms = launch.sms;
  q.max_par = launch.max_par;
  q.flags = launch.flags;
  q.stream = launch.stream;
  q.format = plugin_format(format);
  q.bits = code_bits(format.weights);
  q.num_groups = shape.group > 0 || is_per_column(shape.group) ? scale_rows(shape.K, shape.group) : 0;
  q.zero_points = on.zero_points;
  q.g_idx = on.g_idx;
  q.perm = on.perm;
  return q;
}

}  // namespace tc
