// Matrix types shared by reference/, fixtures/ and compare/: Eigen, row-major, raw element bits.
#pragma once
#include <cstdint>

#include <Eigen/Core>

#include "tilecheck/reference/fp16.h"

namespace tc {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using HalfMatrix = RowMatrix<half_bits>;     // fp16 as raw bits
using CodeMatrix = RowMatrix<std::uint8_t>;  // 4-bit codes, one per byte, logical (K, N)
using PackedMatrix = RowMatrix<std::int32_t>;  // Marlin-packed weights, (K/16, 2N)
using F64Matrix = RowMatrix<double>;

F64Matrix to_double(const HalfMatrix& h);
HalfMatrix to_half(const F64Matrix& x);  // correctly rounded, element by element

}  // namespace tc
