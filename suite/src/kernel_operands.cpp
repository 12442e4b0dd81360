#include "tilecheck/suite/kernel_operands.h"

#include "tilecheck/core/error.h"
#include "tilecheck/reference/marlin_format_8bit.h"
#include "tilecheck/reference/zero_points.h"

namespace tc {
namespace {

int plugin_dtype(Dtype d) { return d == Dtype::fp16 ? TC_DTYPE_FP16 : TC_DTYPE_BF16; }

int plugin_weight_type(WeightType t) {
  switch (t) {
    case WeightType::uint4b8: return TC_WEIGHT_UINT4B8;
    case WeightType::uint4: return TC_WEIGHT_UINT4;
    case WeightType::uint8b128: return TC_WEIGHT_UINT8B128;
  }
  return 0;
}

}  // namespace

tc_format plugin_format(const FixtureFormat& f) {
  const int d = plugin_dtype(f.dtype);
  return {d, d, d, plugin_weight_type(f.weights), f.act_order != ActOrder::none ? 1 : 0, f.k_full ? 1 : 0};
}

KernelOperands kernel_operands(const Fixture& f) {
  KernelOperands o;
  o.shape = f.spec.shape;
  o.contract = f.spec.contract;
  o.format = f.spec.format;
  o.A = f.A;
  o.B = code_bits(f.spec.format.weights) == 8 ? pack_weights_8bit(kernel_order_codes(f)) : f.B_marlin;
  o.scales = f.scales_marlin;
  if (has_zero_points(f.spec.format.weights)) o.zero_points = pack_zero_points(f.zero_points);
  if (!f.perm.empty()) {
    o.perm = f.perm;
    o.g_idx.reserve(f.perm.size());
    for (const int row : f.perm) o.g_idx.push_back(f.g_idx[static_cast<size_t>(row)]);
    for (size_t i = 1; i < o.g_idx.size(); ++i)
      require(o.g_idx[i - 1] <= o.g_idx[i], "case ", f.spec.id, ": g_idx in the kernel's order is not sorted at row ",
              i, " (", o.g_idx[i - 1], " then ", o.g_idx[i], ")");
  }
  return o;
}

}  // namespace tc
