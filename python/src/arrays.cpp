#include "arrays.h"

#include <cstring>

namespace tc::py {

nb::capsule keep_alive(std::shared_ptr<const void> owner) {
  return nb::capsule(new std::shared_ptr<const void>(std::move(owner)),
                     [](void* p) noexcept { delete static_cast<std::shared_ptr<const void>*>(p); });
}

namespace {

Array make_view(const void* data, Eigen::Index rows, Eigen::Index cols, const nb::capsule& owner,
                nb::dlpack::dtype dtype) {
  const std::size_t shape[2] = {static_cast<std::size_t>(rows), static_cast<std::size_t>(cols)};
  return Array(const_cast<void*>(data), 2, shape, owner, nullptr, dtype);
}

}  // namespace

template <typename T>
Array view(const RowMatrix<T>& m, const nb::capsule& owner) {
  return make_view(m.data(), m.rows(), m.cols(), owner, nb::dtype<T>());
}

Array view_half(const HalfMatrix& m, const nb::capsule& owner) {
  const nb::dlpack::dtype float16{static_cast<std::uint8_t>(nb::dlpack::dtype_code::Float), 16, 1};
  return make_view(m.data(), m.rows(), m.cols(), owner, float16);
}

Array view_dtype(const HalfMatrix& m, Dtype d, const nb::capsule& owner) {
  if (d == Dtype::fp16) return view_half(m, owner);
  auto values = std::make_shared<RowMatrix<float>>(m.rows(), m.cols());
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const std::uint32_t bits = static_cast<std::uint32_t>(m.data()[i]) << 16;  // NaN payloads survive
    std::memcpy(values->data() + i, &bits, sizeof bits);
  }
  return view(*values, keep_alive(values));
}

Array view_vector(const std::vector<int>& v, const nb::capsule& owner) {
  const std::size_t shape[1] = {v.size()};
  return Array(const_cast<int*>(v.data()), 1, shape, owner, nullptr, nb::dtype<int>());
}

template Array view(const RowMatrix<float>&, const nb::capsule&);
template Array view(const RowMatrix<std::uint8_t>&, const nb::capsule&);
template Array view(const RowMatrix<std::uint16_t>&, const nb::capsule&);  // fp16 / bf16 as bits
template Array view(const RowMatrix<std::int32_t>&, const nb::capsule&);
template Array view(const RowMatrix<double>&, const nb::capsule&);

}  // namespace tc::py
