// Matrix types every layer shares: Eigen, row-major, raw element bits. Plain typedefs; the fp16
// conversions between them are the reference's (tilecheck/reference/matrix.h).
#pragma once
#include <cstdint>

#include <Eigen/Core>

namespace tc {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

using HalfMatrix = RowMatrix<std::uint16_t>;   // fp16 (or bf16) as raw bits: tc::half_bits, fp16.h
using CodeMatrix = RowMatrix<std::uint8_t>;    // 4-bit codes, one per byte, logical (K, N)
using PackedMatrix = RowMatrix<std::int32_t>;  // Marlin-packed weights, (K/16, 2N)
using F64Matrix = RowMatrix<double>;

}  // namespace tc
