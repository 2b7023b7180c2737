// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file output.cuh
/// @brief The GraphBLAS output steps on the device, shared by every CUDA kernel (specialized and
/// generic): the vector result w<mask> = accum(w, t) with the replace flag (the CUDA twin of
/// spindle/ops/cpu/output.hpp), and the dense epilogue of mxm, C = accum(C, act(t + bias)).

#include <cstdint>

#include "spindle/cuda/device_views.hpp"
#include "spindle/operators.hpp"

namespace spindle::detail::cuda {

/// True when mask element i is nonzero (any element type the Mask view carries).
__device__ __forceinline__ bool mask_value_nonzero(const void* v, Mask::Elem e, std::int64_t i) {
  switch (e) {
    case Mask::Elem::U8:
      return static_cast<const std::uint8_t*>(v)[i] != 0;
    case Mask::Elem::I32:
      return static_cast<const std::int32_t*>(v)[i] != 0;
    case Mask::Elem::I64:
      return static_cast<const std::int64_t*>(v)[i] != 0;
    case Mask::Elem::F32:
      return static_cast<const float*>(v)[i] != 0.0f;
    case Mask::Elem::F64:
      return static_cast<const double*>(v)[i] != 0.0;
  }
  return false;
}

/// True when the mask lets output entry i be written.
__device__ __forceinline__ bool mask_selects(const DeviceMask& m, std::int64_t i) {
  if (m.none) return !m.complement;
  bool s = m.presence == nullptr || m.presence[i] != 0;
  if (s && !m.structural) s = mask_value_nonzero(m.values, m.elem, i);
  return s != m.complement;
}

/// Writes t(i). kGeneral = false is the simple path: no mask, no accumulator.
template <bool kGeneral, class T>
__device__ __forceinline__ void write_result(const VectorResult<T>& r, std::int64_t i, T t,
                                             bool has) {
  if constexpr (!kGeneral) {
    r.w[i] = has ? t : r.identity;
    if (r.present != nullptr) r.present[i] = has ? 1 : 0;
  } else {
    if (!mask_selects(r.mask, i)) {
      if (r.replace && r.present != nullptr) r.present[i] = 0;
      return;
    }
    if (r.accum.enabled) {
      if (!has) return;
      if (r.present == nullptr || r.present[i] != 0) {
        r.w[i] = apply_binary(r.accum.op, r.w[i], t);
      } else {
        r.w[i] = t;
        r.present[i] = 1;
      }
      return;
    }
    if (has) {
      r.w[i] = t;
      if (r.present != nullptr) r.present[i] = 1;
    } else {
      r.w[i] = r.identity;
      if (r.present != nullptr) r.present[i] = 0;
    }
  }
}

/// The dense epilogue (DenseEpilogue, device_views.hpp) applied to t, column n.
template <class T>
__device__ __forceinline__ T finish_value(const DenseEpilogue<T>& e, T t, std::int64_t n) {
  if (e.bias != nullptr) t = t + e.bias[n];
  if (e.act != UnaryOp::Identity) t = apply_unary(e.act, t, e.act_scalar);
  return t;
}

/// Writes the finished value t to *c (column n) through the epilogue.
template <class T>
__device__ __forceinline__ void store_finished(const DenseEpilogue<T>& e, T* c, T t,
                                               std::int64_t n) {
  t = finish_value(e, t, n);
  if (e.accum.enabled) t = apply_binary(e.accum.op, *c, t);
  *c = t;
}

}  // namespace spindle::detail::cuda
