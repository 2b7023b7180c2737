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

using MlpKernel = void (*)(int, int, int, int, const float*, const float*, const float*, int,
                           const float*, float*);

/// The two-layer kernel: T (m x n2) = act(A (m x k) · W1 (k x n1) + b1) · W2 (n1 x n2) for k, n1
/// <= 128 and n2 <= 32, act ReLU where `relu` != 0, b1 nullptr for none; arguments (m, n1, n2, k,
/// A, W1, b1, relu, W2, T), all row-major and dense. The hidden 64 x 128 tile never leaves
/// registers. nullptr where k is out of range (or, like split_tf32_wgmma_kernel, no sm_90a code:
/// split_tf32.cu checks the image). Launch: 256 threads (two warpgroups),
/// split_tf32_wgmma_mlp_smem(k) bytes of dynamic shared memory, any persistent grid.
MlpKernel split_tf32_wgmma_mlp_kernel(int k) noexcept;

/// Dynamic shared memory of the two-layer kernel: W1's parts at 128 columns, the A slots of two
/// warpgroups, W2's hi and lo parts (128 x 32 each) and the bias (128). 224.5 KB at k = 128.
constexpr unsigned long split_tf32_wgmma_mlp_smem(int k) {
  return split_tf32_wgmma_smem(k, 128, 2) + sizeof(float) * (2ul * 128ul * 32ul + 128ul);
}

}  // namespace spindle::detail::cuda
