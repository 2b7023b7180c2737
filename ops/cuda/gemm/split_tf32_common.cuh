// SPDX-License-Identifier: Apache-2.0
#pragma once
// The operand split shared by the mma.sync (split_tf32.cu) and wgmma (sm90a/split_tf32_wgmma.cu)
// forms of the split-TF32 GEMM.
#include <cstdint>

namespace spindle::detail::cuda::tf32split {

/// The largest float whose TF32 rounding (to nearest, ties away) is finite: one ulp below
/// (2 - 2^-11) · 2^127, the midpoint between the largest TF32 value and 2^128.
constexpr float kMaxSplit = 0x1.ffdffep+127f;

/// x = hi + lo (+ a remainder below 2^-21 |x|), both TF32: hi is x rounded to nearest (from x
/// clamped to ±kMaxSplit, so it never rounds to an infinity), lo is the rest truncated, so that
/// hi + lo never exceeds |x| and cannot overflow near FLT_MAX. An infinite x gives an infinite lo
/// and a NaN a NaN lo (fmin/fmax drop the NaN from hi): both propagate as in an FP32 product.
/// The rounding is cvt.rna.tf32.f32's (to nearest, ties away from zero: half a TF32 ulp added to
/// the bits, then the 13 low bits cleared), written out: ptxas expands the conversion with a guard
/// for infinities and NaNs that the clamp already rules out, and without it the split is six
/// instructions instead of seven; in the GEMM pair's epilogue that took its time from 1.88 to 1.53
/// ms on an H200 (docs/design/gemm.md), with the same bits.
__device__ __forceinline__ void split(float x, std::uint32_t& hi, std::uint32_t& lo) {
  const float c = fminf(fmaxf(x, -kMaxSplit), kMaxSplit);
  hi = (__float_as_uint(c) + 0x1000u) & 0xffffe000u;
  lo = __float_as_uint(x - __uint_as_float(hi)) & 0xffffe000u;
}

}  // namespace spindle::detail::cuda::tf32split
