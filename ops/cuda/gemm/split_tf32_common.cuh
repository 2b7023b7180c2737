// SPDX-License-Identifier: Apache-2.0
#pragma once
// The operand split shared by the mma.sync (split_tf32.cu) and wgmma (sm90a/split_tf32_wgmma.cu)
// forms of the split-TF32 GEMM.
#include <cstdint>

namespace spindle::detail::cuda::tf32split {

__device__ __forceinline__ std::uint32_t to_tf32(float x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

/// The largest float whose TF32 rounding (to nearest, ties away) is finite: one ulp below
/// (2 - 2^-11) · 2^127, the midpoint between the largest TF32 value and 2^128.
constexpr float kMaxSplit = 0x1.ffdffep+127f;

/// x = hi + lo (+ a remainder below 2^-21 |x|), both TF32: hi is x rounded to nearest (from x
/// clamped to ±kMaxSplit, so it never rounds to an infinity), lo is the rest truncated, so that
/// hi + lo never exceeds |x| and cannot overflow near FLT_MAX. An infinite x gives an infinite lo
/// and a NaN a NaN lo (fmin/fmax drop the NaN from hi): both propagate as in an FP32 product.
/// Five instructions: two min/max, one conversion, one subtraction, one mask.
__device__ __forceinline__ void split(float x, std::uint32_t& hi, std::uint32_t& lo) {
  hi = to_tf32(fminf(fmaxf(x, -kMaxSplit), kMaxSplit));
  lo = __float_as_uint(x - __uint_as_float(hi)) & 0xffffe000u;
}

}  // namespace spindle::detail::cuda::tf32split
