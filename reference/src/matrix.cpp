#include "tilecheck/matrix.h"

namespace tc {

F64Matrix to_double(const HalfMatrix& h) {
  return h.unaryExpr([](half_bits b) { return half_to_double(b); });
}

HalfMatrix to_half(const F64Matrix& x) {
  return x.unaryExpr([](double v) { return round_to_half(v); });
}

}  // namespace tc
