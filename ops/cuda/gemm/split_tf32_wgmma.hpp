// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file split_tf32_wgmma.hpp
/// @brief The Hopper form of the split-TF32 GEMM (split_tf32.hpp): the same hi + lo operand split
/// and three products per term, issued as warpgroup MMAs (wgmma.mma_async, sm_90a) instead of
/// mma.sync. It exists only where the build targets sm_90 (ops/cuda/gemm/sm90a/, compiled for
/// sm_90a alone) and runs only on compute capability 9.0 devices; split_tf32.cu asks for it here
/// and falls back to its mma.sync forms where there is none.

namespace spindle::detail::cuda {

using SplitKernel = void (*)(int, int, int, const float*, const float*, float*);

/// The wgmma kernel for inner dimension k (0 <= k <= 128; it is built for k rounded up to 16, 32,
/// 64 or 128, zeros beyond k) whose blocks are `warpgroups` (2 or 3) warpgroups, each owning
/// 64 x `width` tiles of C (width 32, 64 or 128; n <= width), or nullptr where this build has no
/// sm_90a code or an argument is out of range. Launch: 128 x warpgroups threads,
/// split_tf32_wgmma_smem(k, width, warpgroups) bytes of dynamic shared memory, a persistent grid
/// of any size (the warpgroups walk row tiles blockIdx.x * warpgroups + w, + warpgroups *
/// gridDim.x, ...).
SplitKernel split_tf32_wgmma_kernel(int width, int k, int warpgroups) noexcept;

constexpr int kWgmmaMaxK = 128;

/// The inner dimension the kernel for k is built for: k rounded up to 16, 32, 64 or 128.
constexpr int split_tf32_wgmma_built_k(int k) {
  const int chunks = (k + 15) / 16;
  return 16 * (chunks <= 1 ? 1 : chunks <= 2 ? 2 : chunks <= 4 ? 4 : 8);
}

/// Dynamic shared memory of the wgmma kernel: B's hi and lo parts (k rounded up as above) and
/// each warpgroup's slots for one tile of A (64 rows x k, same rounding).
constexpr unsigned long split_tf32_wgmma_smem(int k, int width, int warpgroups) {
  const auto kp = static_cast<unsigned long>(split_tf32_wgmma_built_k(k));
  return sizeof(float) * kp *
         (2ul * static_cast<unsigned long>(width) + 64ul * static_cast<unsigned long>(warpgroups));
}

}  // namespace spindle::detail::cuda
