#include "tilecheck/plugin/formats.h"

#include "tilecheck/core/error.h"

namespace tc {
namespace {

std::string dtype_name(int d) {
  switch (d) {
    case TC_DTYPE_FP16: return "fp16";
    case TC_DTYPE_BF16: return "bf16";
  }
  return cat("dtype?", d);
}

std::string weight_name(int w) {
  switch (w) {
    case TC_WEIGHT_UINT4B8: return "uint4b8";
    case TC_WEIGHT_UINT4: return "uint4";
    case TC_WEIGHT_UINT8B128: return "uint8b128";
  }
  return cat("weights?", w);
}

bool is_dtype(int d) { return d == TC_DTYPE_FP16 || d == TC_DTYPE_BF16; }
const char* kExpectedDtype = "(expected TC_DTYPE_FP16=1 or TC_DTYPE_BF16=2)";

}  // namespace

std::string format_name(const tc_format& f) {
  const bool one_dtype = f.a_dtype == f.scale_dtype && f.a_dtype == f.c_dtype;
  std::string out = one_dtype ? dtype_name(f.a_dtype)
                              : cat(dtype_name(f.a_dtype), "/", dtype_name(f.scale_dtype), "/", dtype_name(f.c_dtype));
  out += "-" + weight_name(f.weight_type);
  if (f.act_order != 0) out += f.act_order == 1 ? "-act" : cat("-act?", f.act_order);
  if (f.is_k_full != 1) out += f.is_k_full == 0 ? "-kpart" : cat("-kfull?", f.is_k_full);
  return out;
}

std::string format_names(const std::vector<tc_format>& formats) {
  std::string out;
  for (const tc_format& f : formats) out += (out.empty() ? "" : ", ") + format_name(f);
  return out;
}

int weight_bits(int weight_type) {
  switch (weight_type) {
    case TC_WEIGHT_UINT4B8:
    case TC_WEIGHT_UINT4: return 4;
    case TC_WEIGHT_UINT8B128: return 8;
  }
  return 0;
}

std::string format_problem(const tc_format& f) {
  if (!is_dtype(f.a_dtype)) return cat("a_dtype=", f.a_dtype, " ", kExpectedDtype);
  if (!is_dtype(f.scale_dtype)) return cat("scale_dtype=", f.scale_dtype, " ", kExpectedDtype);
  if (!is_dtype(f.c_dtype)) return cat("c_dtype=", f.c_dtype, " ", kExpectedDtype);
  if (weight_bits(f.weight_type) == 0)
    return cat("weight_type=", f.weight_type,
               " (expected TC_WEIGHT_UINT4B8=1, TC_WEIGHT_UINT4=2 or TC_WEIGHT_UINT8B128=3)");
  if (f.act_order != 0 && f.act_order != 1) return cat("act_order=", f.act_order, " (expected 0 or 1)");
  if (f.is_k_full != 0 && f.is_k_full != 1) return cat("is_k_full=", f.is_k_full, " (expected 0 or 1)");
  if (f.is_k_full == 0 && f.act_order == 0) return "is_k_full=0 without act_order (a shard of K needs act-order)";
  return {};
}

std::string abi_v1_refusal(const tc_format& f) {
  if (is_abi_v1_format(f)) return "";
  return cat("format ", format_name(f), ": the kernel library's ABI v1 implements fp16/uint4b8 without act-order only");
}

std::string unlisted_format(const std::string& library, const tc_format& f, const std::vector<tc_format>& listed) {
  return cat("kernel library ", library, " does not list format ", format_name(f), " (it lists ", format_names(listed),
             ")");
}

}  // namespace tc
