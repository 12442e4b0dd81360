// Thin wrappers over the PTX instructions the kernel is built from (sm_80+): cp.async, ldmatrix,
// mma.sync m16n8k16, lop3, acquire loads and the release add. Each is one instruction (the release
// add two); names say which.
#pragma once
#include <cstdint>

#include <cuda_fp16.h>

namespace tc::device {

__device__ inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global->shared copy through L2 only (.cg); with `pred` false the destination is
// zero-filled and nothing is read (src-size 0).
__device__ inline void cp_async16(void* smem, const void* gmem, bool pred) {
  const int src_size = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem)), "l"(gmem),
               "r"(src_size));
}

// As cp_async16, but issued only if `issue` (a predicated instruction, no branch).
__device__ inline void cp_async16_if(bool issue, void* smem, const void* gmem, bool pred) {
  const int src_size = pred ? 16 : 0;
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %3, 0;\n @p cp.async.cg.shared.global [%0], [%1], 16, %2;\n}\n" ::"r"(
          shared_address(smem)),
      "l"(gmem), "r"(src_size), "r"(int(issue)));
}

__device__ inline void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem)));
}

// c += a (16x16 fp16, row) * b (16x8 fp16, col), fp32 accumulation.
__device__ inline void mma_m16n8k16(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// The same with bf16 a and b.
__device__ inline void mma_m16n8k16_bf16(float (&c)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// (a & b) | c in one LOP3: ptxas (CUDA 13.0) emits an AND and an OR for the plain C++ expression,
// which costs the dequantization 32 extra instructions per k-tile. 0xEA is the truth table of
// (a & b) | c over the operand patterns a = 0xF0, b = 0xCC, c = 0xAA.
__device__ inline std::uint32_t and_or(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  std::uint32_t d;
  asm("lop3.b32 %0, %1, %2, %3, 0xEA;\n" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__device__ inline int load_acquire(const int* p) {
  int v;
  asm volatile("ld.global.acquire.gpu.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Release pattern (PTX memory model): a fence.acq_rel then a relaxed add. Every write that
// happens before the fence (the block's stores, through the barrier before it) is visible at gpu
// scope to whoever acquires the new value. Lighter than __threadfence() (fence.sc.gpu), which also
// orders this thread against every other sequentially consistent fence.
__device__ inline void release_add(int* p) {
  asm volatile("fence.acq_rel.gpu;\n"
               "red.relaxed.gpu.global.add.s32 [%0], 1;\n" ::"l"(p)
               : "memory");
}

__device__ inline std::uint32_t bits_of(half2 h) { return *reinterpret_cast<std::uint32_t*>(&h); }
__device__ inline half2 half2_of(std::uint32_t u) { return *reinterpret_cast<half2*>(&u); }

}  // namespace tc::device
