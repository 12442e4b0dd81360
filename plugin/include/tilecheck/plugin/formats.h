// The formats of the plugin ABI 2 (tc_format, tilecheck/plugin/plugin.h) as values: names, ABI 1's
// one format, the fields of a problem that follow from its format, and the check of a library's
// list (tc_plugin_formats).
#pragma once
#include <string>
#include <vector>

#include "tilecheck/plugin/plugin.h"

namespace tc {

// fp16 A, scales and C; uint4b8 codes; no act-order: all a library of ABI 1 implements. Inline, so
// that a kernel library, which links only the ABI's headers, compares formats the same way.
inline tc_format abi_v1_format() { return {TC_DTYPE_FP16, TC_DTYPE_FP16, TC_DTYPE_FP16, TC_WEIGHT_UINT4B8, 0, 1}; }
inline bool same_format(const tc_format& a, const tc_format& b) {
  return a.a_dtype == b.a_dtype && a.scale_dtype == b.scale_dtype && a.c_dtype == b.c_dtype &&
         a.weight_type == b.weight_type && a.act_order == b.act_order && a.is_k_full == b.is_k_full;
}
inline bool is_abi_v1_format(const tc_format& f) { return same_format(f, abi_v1_format()); }
// "<dtype>-<weights>[-act[-kpart]]", e.g. "fp16-uint4b8", "bf16-uint4", "fp16-uint8b128-act-kpart";
// dtypes that differ are written "<a>/<scale>/<c>" ("fp16/bf16/fp16-uint4b8"); a value out of its
// enum as "dtype?7".
std::string format_name(const tc_format& f);
std::string format_names(const std::vector<tc_format>& formats);  // "fp16-uint4b8, bf16-uint4b8"
// Bits a code of the weight type: 4 or 8 (0 for a value out of the enum).
int weight_bits(int weight_type);
// Empty if `f` is a valid declaration; else the first field that is not, with its value and what
// was expected: "weight_type=7 (expected TC_WEIGHT_UINT4B8=1, TC_WEIGHT_UINT4=2 or TC_WEIGHT_UINT8B128=3)".
std::string format_problem(const tc_format& f);
// Why a library of ABI 1 cannot run a problem of format `f` ("" for ABI 1's format): the sentence
// of tc::abi_v1_not_applicable (tilecheck/fixtures/catalogue.h), with this format's name.
std::string abi_v1_refusal(const tc_format& f);
// Why a library that lists `listed` cannot run format `f`: "kernel library <library> does not list
// format bf16-uint4 (it lists fp16-uint4b8, ...)"; `library` is its path (the loader) or its name
// (the matrix). The caller has checked that `f` is not listed.
std::string unlisted_format(const std::string& library, const tc_format& f, const std::vector<tc_format>& listed);

}  // namespace tc
