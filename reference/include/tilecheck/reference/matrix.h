// fp16 <-> double conversions of whole matrices (the types: tilecheck/core/matrix.h).
#pragma once
#include "tilecheck/core/matrix.h"
#include "tilecheck/reference/fp16.h"

namespace tc {

F64Matrix to_double(const HalfMatrix& h);
HalfMatrix to_half(const F64Matrix& x);  // correctly rounded, element by element

}  // namespace tc
