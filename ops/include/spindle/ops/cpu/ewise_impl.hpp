// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ewise_impl.hpp
/// @brief CPU kernels of the element-wise operations on vectors and dense matrices: eWiseAdd,
/// eWiseMult, apply, and the GCN row-bias epilogue. Outputs may alias inputs (index i is read
/// before it is written). Full inputs without mask and accumulator take a fast path with the
/// operator fixed at compile time.

#include <cstdint>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/ops/cpu/functors.hpp"
#include "spindle/ops/cpu/output.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail::cpu_kernels {

/// w<mask> = accum(w, u ∪op v) (union) or u ∩op v (intersection, `is_union` = false).
template <class T>
void ewise_vectors(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
                   const Vector<T>& v, bool replace, bool is_union) {
  const T* uv = u.data();
  const T* vv = v.data();
  const std::int64_t n = w.size();
  if (mask.empty() && !accum.enabled && u.is_full() && v.is_full()) {
    T* wv = w.data();
    with_binary(op, [&](auto opc) {
      for_each_index_block(n, [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) wv[i] = apply_binary(opc.value, uv[i], vv[i]);
      });
    });
    w.bitmap().clear();
    return;
  }
  // Presence pointers are taken before VectorOutput gives an aliased full w a bitmap; index i
  // of that bitmap is only written after index i was read.
  const std::uint8_t* up = u.bitmap_ptr();
  const std::uint8_t* vp = v.bitmap_ptr();
  write_indexwise(w, mask, accum, replace, [&](std::int64_t i, T& t) {
    const bool pu = up == nullptr || up[i] != 0;
    const bool pv = vp == nullptr || vp[i] != 0;
    if (pu && pv) {
      t = apply_binary(op, uv[i], vv[i]);
      return true;
    }
    if (!is_union) return false;
    if (pu) {
      t = uv[i];
      return true;
    }
    if (pv) {
      t = vv[i];
      return true;
    }
    return false;
  });
}

/// C = accum(C, op(A, B)) on equal shapes (C already sized).
template <class T>
void ewise_dense(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,
                 const DenseMatrix<T>& B) {
  T* c = C.data();
  const T* a = A.data();
  const T* b = B.data();
  with_binary(op, [&](auto opc) {
    for_each_index_block(C.size(), [&](std::int64_t i0, std::int64_t i1) {
      if (accum.enabled) {
        for (std::int64_t i = i0; i < i1; ++i) {
          c[i] = apply_binary(accum.op, c[i], apply_binary(opc.value, a[i], b[i]));
        }
      } else {
        for (std::int64_t i = i0; i < i1; ++i) c[i] = apply_binary(opc.value, a[i], b[i]);
      }
    });
  });
}

/// w<mask> = accum(w, op(u)) over the present entries of u.
template <class T>
void apply_vector(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,
                  bool replace) {
  const T* uv = u.data();
  const T s = op.scalar;
  if (mask.empty() && !accum.enabled && u.is_full()) {
    T* wv = w.data();
    with_unary(op.op, [&](auto opc) {
      for_each_index_block(w.size(), [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) wv[i] = apply_unary(opc.value, uv[i], s);
      });
    });
    w.bitmap().clear();
    return;
  }
  const std::uint8_t* up = u.bitmap_ptr();
  write_indexwise(w, mask, accum, replace, [&](std::int64_t i, T& t) {
    if (up != nullptr && up[i] == 0) return false;
    t = apply_unary(op.op, uv[i], s);
    return true;
  });
}

/// w<mask> = accum(w, t) with t(i) = i + s where u(i) is present (apply_index).
template <class T>
void apply_index_vector(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, T s,
                        bool replace) {
  if (mask.empty() && !accum.enabled && u.is_full()) {
    T* wv = w.data();
    for_each_index_block(w.size(), [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i) wv[i] = static_cast<T>(i) + s;
    });
    w.bitmap().clear();
    return;
  }
  const std::uint8_t* up = u.bitmap_ptr();
  write_indexwise(w, mask, accum, replace, [&](std::int64_t i, T& t) {
    if (up != nullptr && up[i] == 0) return false;
    t = static_cast<T>(i) + s;
    return true;
  });
}

/// C = accum(C, op(A)) elementwise (C already sized).
template <class T>
void apply_dense(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A) {
  T* c = C.data();
  const T* a = A.data();
  const T s = op.scalar;
  with_unary(op.op, [&](auto opc) {
    for_each_index_block(C.size(), [&](std::int64_t i0, std::int64_t i1) {
      if (accum.enabled) {
        for (std::int64_t i = i0; i < i1; ++i) {
          c[i] = apply_binary(accum.op, c[i], apply_unary(opc.value, a[i], s));
        }
      } else {
        for (std::int64_t i = i0; i < i1; ++i) c[i] = apply_unary(opc.value, a[i], s);
      }
    });
  });
}

/// C(i, :) = op(C(i, :) + bias) for every row; absent bias entries add nothing.
template <class T>
void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op) {
  const std::int64_t rows = C.rows();
  const std::int64_t cols = C.cols();
  std::vector<T> b(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) b[j] = bias.present(j) ? bias[j] : T(0);
  const T s = op.scalar;
  T* c = C.data();
  const T* bp = b.data();
  with_unary(op.op, [&](auto opc) {
    for_each_index_block(rows * cols, [&](std::int64_t i0, std::int64_t i1) {
      // Whole rows per block keep the bias index a simple counter.
      const std::int64_t r0 = cols == 0 ? 0 : (i0 + cols - 1) / cols;
      const std::int64_t r1 = cols == 0 ? 0 : (i1 + cols - 1) / cols;
      for (std::int64_t r = r0; r < r1; ++r) {
        T* row = c + r * cols;
        for (std::int64_t j = 0; j < cols; ++j) row[j] = apply_unary(opc.value, row[j] + bp[j], s);
      }
    });
  });
}

}  // namespace spindle::detail::cpu_kernels
