#include "tilecheck/reference/exact_sum.h"

#include <cmath>

namespace tc {
namespace {

__extension__ typedef unsigned __int128 u128;

}  // namespace

void ExactSum::add(double x) {
  if (std::isnan(x)) {
    nan_ = true;
    return;
  }
  if (std::isinf(x)) {
    (x > 0 ? pos_inf_ : neg_inf_) = true;
    return;
  }
  if (x == 0) return;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);                  // |x| = m * 2^e, m in [0.5, 1)
  const auto significand = static_cast<std::uint64_t>(std::ldexp(m, 53));  // exact, < 2^53
  const int position = e - 53 - kLsb;                             // >= 1 for every double
  const int limb = position / 64, offset = position % 64;
  const u128 shifted = static_cast<u128>(significand) << offset;  // below 2^116
  std::uint64_t parts[2] = {static_cast<std::uint64_t>(shifted), static_cast<std::uint64_t>(shifted >> 64)};
  if (x > 0) {
    u128 carry = 0;
    for (int i = limb; i < kLimbs; ++i) {
      const u128 s = static_cast<u128>(limbs_[i]) + (i - limb < 2 ? parts[i - limb] : 0) + carry;
      limbs_[i] = static_cast<std::uint64_t>(s);
      carry = s >> 64;
      if (carry == 0 && i - limb >= 1) break;
    }
  } else {
    std::uint64_t borrow = 0;
    for (int i = limb; i < kLimbs; ++i) {
      const std::uint64_t sub = i - limb < 2 ? parts[i - limb] : 0;
      const std::uint64_t before = limbs_[i];
      const u128 total = static_cast<u128>(sub) + borrow;
      limbs_[i] = before - static_cast<std::uint64_t>(total);
      borrow = (static_cast<u128>(before) < total) ? 1 : 0;
      if (borrow == 0 && i - limb >= 1) break;
    }
  }
}

bool ExactSum::is_zero() const {
  for (std::uint64_t l : limbs_)
    if (l != 0) return false;
  return true;
}

double ExactSum::round_to_odd() const {
  if (nan_ || (pos_inf_ && neg_inf_)) return std::nan("");
  if (pos_inf_) return INFINITY;
  if (neg_inf_) return -INFINITY;
  std::array<std::uint64_t, kLimbs> a = limbs_;
  const bool negative = (a[kLimbs - 1] >> 63) != 0;
  if (negative) {  // magnitude: two's complement negation
    std::uint64_t carry = 1;
    for (std::uint64_t& l : a) {
      l = ~l + carry;
      carry = (carry && l == 0) ? 1 : 0;
    }
  }
  int top = kLimbs - 1;
  while (top >= 0 && a[top] == 0) --top;
  if (top < 0) return 0.0;
  const int high_bit = 64 * top + 63 - __builtin_clzll(a[top]);  // of the magnitude
  const int low = high_bit - 52;                                  // the 53 bits kept start here
  std::uint64_t mantissa = 0;
  bool sticky = false;
  for (int bit = high_bit; bit >= 0 && bit >= low; --bit) mantissa = mantissa << 1 | ((a[bit / 64] >> (bit % 64)) & 1);
  if (low < 0) mantissa <<= -low;  // fewer than 53 bits in all: exact
  for (int bit = low - 1; bit >= 0 && !sticky; --bit) {
    if (bit % 64 == 63 && a[bit / 64] == 0) {
      bit -= 63;  // a whole zero limb
      continue;
    }
    sticky = ((a[bit / 64] >> (bit % 64)) & 1) != 0;
  }
  if (sticky) mantissa |= 1;
  const double r = std::ldexp(static_cast<double>(mantissa), low + kLsb);  // mantissa's last bit weighs 2^(low + kLsb)
  return negative ? -r : r;
}

}  // namespace tc
