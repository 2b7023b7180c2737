// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device_views.hpp
/// @brief The plain device views every CUDA kernel takes: a CSR matrix and a mask as pointers
/// into device memory. Host and device code share them; the engine fills them from its cached
/// device copies (graph_device.hpp, device_mirror.hpp) and the kernel templates under
/// spindle/cuda/kernels/ read them. No CUDA header is needed to include this file.

#include <cstdint>

#include "spindle/mask.hpp"
#include "spindle/operators.hpp"

namespace spindle::detail::cuda {

/// A device CSR view. VV is T (values as the semiring's type) or Pattern (values == nullptr).
template <class I, class VV>
struct DeviceCsr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  const I* row_ptr = nullptr;
  const I* col_idx = nullptr;
  const VV* values = nullptr;
};

/// A mask as kernels read it.
struct DeviceMask {
  const void* values = nullptr;
  const std::uint8_t* presence = nullptr;  ///< nullptr: every mask entry present
  Mask::Elem elem = Mask::Elem::U8;
  bool none = true;         ///< no mask: every entry selected
  bool structural = false;  ///< presence only
  bool complement = false;
};

/// Where and how a kernel writes its vector result (spindle/cuda/kernels/output.cuh writes it).
template <class T>
struct VectorResult {
  T* w = nullptr;
  std::uint8_t* present = nullptr;  ///< nullptr: the result is known full, no presence to write
  DeviceMask mask;
  Accum accum;
  bool replace = false;
  T identity{};  ///< written to absent slots on the simple path (their value is unspecified)
};

/// What happens to a finished dense output element t of row i, column n (mxm):
///   t = act(t + bias[n])            (bias optional; act Identity = nothing)
///   C(i, n) = accum ? accum.op(C(i, n), t) : t
/// This is the GCN layer epilogue fused into the SpMM (bias + ReLU) and GraphBLAS's accumulator.
template <class T>
struct DenseEpilogue {
  const T* bias = nullptr;  ///< device pointer, N entries, or nullptr
  UnaryOp act = UnaryOp::Identity;
  T act_scalar = T(0);
  Accum accum{};
};

}  // namespace spindle::detail::cuda
