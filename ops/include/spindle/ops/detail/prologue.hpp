// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file prologue.hpp
/// @brief Validation and degenerate shapes of the semiring products, run before any planning.
/// Shared by the public entry points and the header-only CPU entry points. Internal.

#include <cstdint>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/graph.hpp"
#include "spindle/ops/cpu/output.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle::detail {

/// Shapes of mxv (vxm = false) or vxm (vxm = true) with desc.transpose_a folded in.
struct MxvShape {
  std::int64_t out_n = 0;
  std::int64_t in_n = 0;
  bool out_is_rows = true;  ///< the output is indexed by A's rows
};

template <class I, class V>
MxvShape mxv_shape(const Graph<I, V>& A, bool transpose_a, bool vxm) {
  MxvShape s;
  s.out_is_rows = (vxm == transpose_a);
  s.out_n = s.out_is_rows ? A.rows() : A.cols();
  s.in_n = s.out_is_rows ? A.cols() : A.rows();
  return s;
}

/// Checks an mxv / vxm call, stages w (`out`, made in place on w by the caller; see
/// OutputStage), and completes the degenerate cases (no output entries, no stored entries; on the
/// host, committed). Returns true when a kernel still has to run: it writes out.get(), and the
/// caller commits. `on_host`: the kernel runs on the CPU backend (see stage_vector_output).
/// `build_transpose` false leaves A^T unbuilt for a call that may not need it (vxm's push: the
/// pull's planning builds it if the push is declined).
template <class T, class I, class V>
bool mxv_prologue(const char* op, OutputStage<Vector<T>>& out, const Mask& mask, Accum accum,
                  const Graph<I, V>& A, const Vector<T>& u, const Descriptor& desc, bool vxm,
                  bool on_host, bool build_transpose = true) {
  const MxvShape s = mxv_shape(A, desc.transpose_a, vxm);
  check_no_alias(op, &u, &out.target(), "u", "w");
  check_dim(op, "u", u.size(), "entries", s.out_is_rows ? "A's column count" : "A's row count",
            s.in_n);
  // The planner's statistics and the CPU kernels read A^T for vxm / transpose_a: build it (it is
  // cached on A) before the call allocates its result.
  if (build_transpose && s.out_n > 0 && A.nnz() > 0 && !s.out_is_rows) (void)A.transpose();
  if (on_host && s.out_n > 0 && A.nnz() > 0) host_inputs(u);
  out = prepare_vector_output(op, out.target(), s.out_n, mask, accum,
                              s.out_is_rows ? "A's row count" : "A's column count",
                              on_host || A.nnz() == 0);
  if (s.out_n == 0) {
    out.commit();
    return false;
  }
  if (A.nnz() == 0) {
    cpu_kernels::write_empty_result(out.get(), mask, accum, desc.replace);
    out.commit();
    return false;
  }
  return true;
}

/// Fills every element of C with accum(C, x) (x alone without an accumulator).
template <class T>
void fill_dense(DenseMatrix<T>& C, Accum accum, T x) {
  T* c = C.data();
  const std::int64_t n = C.size();
  cpu_kernels::for_each_index_block(n, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      c[i] = accum.enabled ? apply_binary(accum.op, c[i], x) : x;
    }
  });
}

/// Checks an mxm call, stages C (`out`, made in place on C by the caller; see OutputStage),
/// completes the degenerate cases (0 rows, N = 0, nnz = 0: every element is the semiring identity,
/// on the host, committed). Returns true when a kernel still has to run: it writes out.get(), and
/// the caller commits. `on_host`: the kernel runs on the CPU backend (see stage_vector_output).
template <class T, class I, class V>
bool mxm_prologue(const char* op, OutputStage<DenseMatrix<T>>& out, Accum accum,
                  const Graph<I, V>& A, const DenseMatrix<T>& B, const Descriptor& desc, T identity,
                  bool on_host) {
  const std::int64_t m = desc.transpose_a ? A.cols() : A.rows();
  const std::int64_t k = desc.transpose_a ? A.rows() : A.cols();
  const std::int64_t b_rows = desc.transpose_b ? B.cols() : B.rows();
  const std::int64_t n = desc.transpose_b ? B.rows() : B.cols();
  check_no_alias(op, &B, &out.target(), "B", "C");
  check_dim(op, desc.transpose_b ? "B^T" : "B", b_rows, "rows",
            desc.transpose_a ? "A's row count" : "A's column count", k);
  // As in mxv_prologue: the transpose (cached on A) is built before the result is allocated.
  if (m > 0 && n > 0 && A.nnz() > 0 && desc.transpose_a) (void)A.transpose();
  if (on_host && m > 0 && n > 0 && A.nnz() > 0) host_inputs(B);
  out = prepare_dense_output(op, out.target(), m, n, accum, on_host || A.nnz() == 0);
  if (m == 0 || n == 0) {
    out.commit();
    return false;
  }
  if (A.nnz() == 0) {
    fill_dense(out.get(), accum, identity);
    out.commit();
    return false;
  }
  return true;
}

/// Checks an sddmm call, stages out (`stage`, made in place on out by the caller; see
/// OutputStage), completes the degenerate cases (nnz = 0; K = 0: each entry's dot product is the
/// identity of add; committed). Returns true when a kernel still has to run: it writes
/// stage.get(), and the caller commits.
template <class Sr, class I, class V>
bool sddmm_prologue(const char* op, OutputStage<std::vector<typename Sr::value_type>>& stage,
                    Accum accum, const Graph<I, V>& S,
                    const DenseMatrix<typename Sr::value_type>& X,
                    const DenseMatrix<typename Sr::value_type>& Y, const Descriptor& desc) {
  using T = typename Sr::value_type;
  const std::int64_t y_rows = desc.transpose_b ? Y.cols() : Y.rows();
  const std::int64_t y_k = desc.transpose_b ? Y.rows() : Y.cols();
  check_dim(op, "X", X.rows(), "rows", "S's row count", S.rows());
  check_dim(op, desc.transpose_b ? "Y^T" : "Y", y_rows, "rows", "S's column count", S.cols());
  check_dim(op, desc.transpose_b ? "Y^T" : "Y", y_k, "columns (K)", "X's column count (K)",
            X.cols());
  const auto nnz = static_cast<std::size_t>(S.nnz());
  std::vector<T>& target = stage.target();
  if (target.size() != nnz) {
    if (accum.enabled) {
      check_dim(op, "out", static_cast<std::int64_t>(target.size()), "values", "nnz(S)",
                static_cast<std::int64_t>(nnz));
    }
    std::vector<T> fresh =
        host_allocation(bytes_of<T>(nnz), op, [&] { return std::vector<T>(nnz, T{}); });
    stage = OutputStage<std::vector<T>>(target, std::move(fresh));
  }
  if (nnz == 0) {
    stage.commit();
    return false;
  }
  if (X.cols() == 0) {
    std::vector<T>& out = stage.get();
    const V* sv = S.value_ptr();
    for (std::size_t k = 0; k < nnz; ++k) {
      const T x = Sr::mul(entry_value<T, V>(sv, static_cast<std::int64_t>(k)), Sr::identity());
      out[k] = accum.enabled ? apply_binary(accum.op, out[k], x) : x;
    }
    stage.commit();
    return false;
  }
  return true;
}

}  // namespace spindle::detail
