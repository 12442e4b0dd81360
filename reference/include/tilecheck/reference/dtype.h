// The output dtype's bits, as the bounds and the comparator read them: one set of questions (NaN?
// Inf? ordered key? where does rounding overflow?) answered for fp16 (fp16.h) or bf16 (bf16.h).
// The two encodings differ in every field, so a bf16 pattern read as fp16 is a different number,
// a different key, and sometimes a NaN where there is none: everything that looks at output bits
// asks here, with the case's dtype. Inline: the comparator calls these once per element.
#pragma once
#include <cstdint>

#include "tilecheck/reference/bf16.h"
#include "tilecheck/reference/fp16.h"
#include "tilecheck/reference/weight_format.h"

namespace tc {

inline bool is_nan(Dtype d, std::uint16_t b) { return d == Dtype::fp16 ? is_nan(b) : bf16_is_nan(b); }
inline bool is_inf(Dtype d, std::uint16_t b) { return d == Dtype::fp16 ? is_inf(b) : bf16_is_inf(b); }
inline bool is_finite(Dtype d, std::uint16_t b) { return !is_nan(d, b) && !is_inf(d, b); }

// Ordered key: -Inf .. +-0 (0) .. +Inf, both encodings sign-magnitude; undefined for NaN.
inline std::int32_t key(Dtype d, std::uint16_t b) { return d == Dtype::fp16 ? half_key(b) : bf16_key(b); }
inline std::uint16_t from_key(Dtype d, std::int32_t k) { return d == Dtype::fp16 ? half_from_key(k) : bf16_from_key(k); }
inline std::int32_t inf_key(Dtype d) { return d == Dtype::fp16 ? kHalfInfKey : kBf16InfKey; }

// Round to nearest gives +-Inf from this magnitude on.
inline double overflow_threshold(Dtype d) { return d == Dtype::fp16 ? kHalfOverflow : kBf16Overflow; }
inline double min_subnormal(Dtype d) { return d == Dtype::fp16 ? kHalfMinSubnormal : kBf16MinSubnormal; }
inline std::uint16_t canonical_nan(Dtype d) { return d == Dtype::fp16 ? kHalfCanonicalNan : kBf16CanonicalNan; }

}  // namespace tc
