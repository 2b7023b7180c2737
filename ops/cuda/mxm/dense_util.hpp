// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file dense_util.hpp
/// @brief Small dense passes around the SpMM / SDDMM kernels (dense_util.cuh; instantiated for
/// float and double in dense_util.cu): an out-of-place transpose (transpose_b), the epilogue
/// applied to a finished product (cuSPARSE has none) and random operands for tuning; and the
/// dense operand as the kernels read it.

#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "spindle/cuda/device_views.hpp"
#include "spindle/dense.hpp"

namespace spindle::detail::cuda {

/// out (cols x rows) = in (rows x cols)ᵀ, both row-major.
template <class T>
void launch_transpose(const T* in, std::int64_t rows, std::int64_t cols, T* out,
                      cudaStream_t stream);

/// c(i, n) = accum(c(i, n), act(t(i, n) + bias[n])) elementwise over rows x n.
template <class T>
void launch_epilogue_pass(const T* t, std::int64_t rows, std::int64_t n, T* c, std::int64_t ldc,
                          const DenseEpilogue<T>& e, cudaStream_t stream);

/// Deterministic pseudo-random values in [-1, 1) (tuning operands: timing on zeros would
/// flatter some kernels).
template <class T>
void launch_fill_random(T* p, std::int64_t n, std::uint64_t seed, cudaStream_t stream);

/// op(M) on the device, row-major with leading dimension `ld`: M's device copy, or for
/// `transpose` a transposed copy made on `stream` (held in `copy`, named `what` in errors).
template <class T>
struct DenseOperand {
  const T* data = nullptr;
  std::int64_t ld = 0;
  DeviceBuffer copy;
};

template <class T>
DenseOperand<T> dense_operand(const DenseMatrix<T>& m, bool transpose, const char* what,
                              cudaStream_t stream) {
  DenseOperand<T> op;
  op.data = device_in(m);
  op.ld = m.cols();
  if (transpose) {
    op.copy = DeviceBuffer(static_cast<std::size_t>(m.size()) * sizeof(T), what);
    launch_transpose<T>(op.data, m.rows(), m.cols(), op.copy.template as<T>(), stream);
    SPINDLE_CUDA_CHECK_LAUNCH("transpose");
    op.data = op.copy.template as<const T>();
    op.ld = m.rows();
  }
  return op;
}

}  // namespace spindle::detail::cuda
