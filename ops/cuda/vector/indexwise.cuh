// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file indexwise.cuh
/// @brief Element-wise vector operations on the device (eWiseAdd, eWiseMult, apply, assign of a
/// scalar or a whole vector, assign of a scalar to an index list): one thread per index computes
/// t(i) and runs the GraphBLAS output step. Index i is read before it is written by the same
/// thread, so w may alias u, v or the mask's vector, as on the CPU. The one exception is
/// assign_list_kernel's unmarked form (one thread per list entry), where a repeated index has two
/// threads on one entry; it runs only where that cannot change the result (see there).

#include <cstdint>

#include "spindle/cuda/kernels/output.cuh"

namespace spindle::detail::cuda {

enum class IndexwiseKind : std::uint8_t {
  EwiseAdd,
  EwiseMult,
  Apply,
  ApplyIndex,  ///< t(i) = i + scalar where u(i) is present
  AssignScalar,
  AssignVector
};

template <class T>
struct IndexwiseArgs {
  std::int64_t n = 0;
  IndexwiseKind kind = IndexwiseKind::Apply;
  const T* u = nullptr;
  const std::uint8_t* up = nullptr;  ///< nullptr: u full
  const T* v = nullptr;
  const std::uint8_t* vp = nullptr;
  BinaryOp op = BinaryOp::Plus;
  UnaryOp unary = UnaryOp::Identity;
  T scalar{};
  VectorResult<T> out;
};

template <bool kGeneral, class T>
__global__ void __launch_bounds__(256) indexwise_kernel(const IndexwiseArgs<T> a) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const bool pu = a.up == nullptr || a.up[i] != 0;
  const bool pv = a.vp == nullptr || a.vp[i] != 0;
  T t{};
  bool has = false;
  switch (a.kind) {
    case IndexwiseKind::EwiseAdd:
      has = pu || pv;
      if (pu && pv) {
        t = apply_binary(a.op, a.u[i], a.v[i]);
      } else if (pu) {
        t = a.u[i];
      } else if (pv) {
        t = a.v[i];
      }
      break;
    case IndexwiseKind::EwiseMult:
      has = pu && pv;
      if (has) t = apply_binary(a.op, a.u[i], a.v[i]);
      break;
    case IndexwiseKind::Apply:
      has = pu;
      if (has) t = apply_unary(a.unary, a.u[i], a.scalar);
      break;
    case IndexwiseKind::ApplyIndex:
      has = pu;
      if (has) t = static_cast<T>(i) + a.scalar;
      break;
    case IndexwiseKind::AssignScalar:
      has = true;
      t = a.scalar;
      break;
    case IndexwiseKind::AssignVector:
      has = pu;
      if (has) t = a.u[i];
      break;
  }
  write_result<kGeneral>(a.out, i, t, has);
}

/// w<mask>(idx[j]) = accum(w(idx[j]), s), one thread per list entry: the form for calls whose
/// result does not depend on how often an index repeats (no accumulator, and no replace under a
/// mask). Two threads on one repeated index race only benignly, even under a mask built from w:
/// each writes only when its own read of the mask selects the entry, always the same s with
/// presence 1, and without replace an unselected entry is left alone; so the entry ends as s
/// exactly when the mask selected it before the call, as on the CPU. With `hit` the list is
/// only marked there (assign_marked_kernel then does the output step once per index).
template <class T>
__global__ void __launch_bounds__(256)
    assign_list_kernel(const VectorResult<T> out, const std::int64_t* idx, std::int64_t k, T s,
                       std::uint8_t* hit) {
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= k) return;
  if (hit != nullptr) {
    hit[idx[j]] = 1;
  } else {
    write_result<true>(out, idx[j], s, true);
  }
}

/// The output step of an index-list assign over every index, once the list is marked in `hit`:
/// listed entries take s (through the mask and accumulator), the others keep their value unless
/// the mask does not select them and replace is set. Index i is read before it is written by the
/// same thread, so the mask may be built from w.
template <class T>
__global__ void __launch_bounds__(256)
    assign_marked_kernel(const VectorResult<T> out, const std::uint8_t* hit, std::int64_t n, T s) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (hit[i] != 0) {
    write_result<true>(out, i, s, true);
  } else if (out.replace && out.present != nullptr && !mask_selects(out.mask, i)) {
    out.present[i] = 0;
  }
}

/// C = accum(C, op(A, B)) / accum(C, op(A)) on dense arrays; `b` nullptr selects the unary form.
template <class T>
__global__ void __launch_bounds__(256)
    dense_elementwise_kernel(T* c, const T* a, const T* b, std::int64_t n, BinaryOp op,
                             UnaryOp unary, T scalar, Accum accum) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T t = b != nullptr ? apply_binary(op, a[i], b[i]) : apply_unary(unary, a[i], scalar);
  c[i] = accum.enabled ? apply_binary(accum.op, c[i], t) : t;
}

/// C(i, :) = op(C(i, :) + bias) (absent bias entries add 0).
template <class T>
__global__ void __launch_bounds__(256)
    add_row_bias_kernel(T* c, std::int64_t rows, std::int64_t cols, const T* bias,
                        const std::uint8_t* bias_present, UnaryOp unary, T scalar) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows * cols) return;
  const std::int64_t j = i % cols;
  const T b = bias_present == nullptr || bias_present[j] != 0 ? bias[j] : T(0);
  c[i] = apply_unary(unary, c[i] + b, scalar);
}

}  // namespace spindle::detail::cuda
