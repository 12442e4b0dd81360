// NumPy arrays <-> the libraries' row-major matrices. Outputs are views that keep their owner
// alive (a fixture, a judgement): no copy. Inputs are copied (the comparator owns what it judges).
// fp16 travels as numpy float16 out and as its raw bits (uint16) in: the Python layer views a
// float16 array as uint16 before the call (tilecheck/_api.py). bf16, which NumPy has no type for,
// goes out as float32 (exact: a bf16 is the top half of a float32) and comes in as its bits too.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include "tilecheck/reference/matrix.h"
#include "tilecheck/reference/weight_format.h"

namespace tc::py {

namespace nb = nanobind;

using Array = nb::ndarray<nb::numpy, nb::ro>;  // a read-only NumPy view
template <typename T>
using Input = nb::ndarray<const T, nb::ndim<2>, nb::c_contig, nb::device::cpu>;

// A capsule that holds `owner` until the last view of it is gone.
nb::capsule keep_alive(std::shared_ptr<const void> owner);

// A read-only (rows, cols) view of `m`, which `owner` keeps alive (a HalfMatrix as its uint16 bits;
// view_half and view_dtype read it as values).
template <typename T>
Array view(const RowMatrix<T>& m, const nb::capsule& owner);
Array view_half(const HalfMatrix& m, const nb::capsule& owner);
// Bits of dtype `d` as NumPy reads them: fp16 as view_half; bf16 as a read-only float32 copy.
Array view_dtype(const HalfMatrix& m, Dtype d, const nb::capsule& owner);
// A read-only (n,) view of `v` (act-order's g_idx and perm).
Array view_vector(const std::vector<int>& v, const nb::capsule& owner);

// A copy of a C-contiguous 2-D array.
template <typename T>
RowMatrix<T> copy(const Input<T>& a) {
  RowMatrix<T> m(static_cast<Eigen::Index>(a.shape(0)), static_cast<Eigen::Index>(a.shape(1)));
  std::copy(a.data(), a.data() + a.size(), m.data());
  return m;
}

}  // namespace tc::py
