// SPDX-License-Identifier: Apache-2.0
// The sparse x sparse mxm: validation, degenerate shapes, planning, the CPU kernels, then the
// mask / accumulator / replace rules applied to C.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/core/instantiate.hpp"
#include "ops/core/spgemm.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/ops/mxm_sparse.hpp"

namespace spindle::detail {
namespace {

template <class I, class T>
CsrView<I, T> view_of(const SparseOperand<I, T>& op) {
  return CsrView<I, T>{op.rows, op.cols, op.row_ptr, op.col_idx, op.values};
}

std::string shape(std::int64_t r, std::int64_t c) {
  return std::to_string(r) + " x " + std::to_string(c);
}

template <class I, class T>
void check_shapes(const Graph<I, T>& C, const MatrixMask& mask, Accum accum,
                  const SparseOperand<I, T>& A, const SparseOperand<I, T>& B,
                  const Descriptor& desc) {
  if (A.cols != B.rows) {
    throw DimensionMismatch("mxm (sparse): A" + std::string(desc.transpose_a ? "^T" : "") + " is " +
                            shape(A.rows, A.cols) + " but B" + (desc.transpose_b ? "^T" : "") +
                            " is " + shape(B.rows, B.cols) + " (inner dimensions differ)");
  }
  if (!mask.empty()) {
    if (mask.rows() != A.rows || mask.cols() != B.cols) {
      throw DimensionMismatch("mxm (sparse): the mask is " + shape(mask.rows(), mask.cols()) +
                              ", the product " + shape(A.rows, B.cols));
    }
    if (mask.index() != index_kind_of<I>()) {
      throw InvalidArgument(std::string("mxm (sparse): the mask's graph has ") +
                            to_string(mask.index()) + " indices, the operands " +
                            to_string(index_kind_of<I>()));
    }
  }
  const bool keeps_old = accum.enabled || (!mask.empty() && !desc.replace);
  if (keeps_old && (C.rows() != A.rows || C.cols() != B.cols)) {
    throw DimensionMismatch("mxm (sparse): C is " + shape(C.rows(), C.cols()) + ", the product " +
                            shape(A.rows, B.cols) +
                            " (C must have the product's shape with a mask or an accumulator)");
  }
}

// Where the call runs: CUDA when asked (Unsupported when there is none), or Auto with a device
// unless a CPU kernel is forced (the planner may still keep a small product on the CPU).
Device spgemm_target(const Descriptor& desc) {
  const SpgemmKernel k = desc.spgemm_kernel;
  const bool cpu_kernel =
      k != SpgemmKernel::Auto && k != SpgemmKernel::CudaRowwise && k != SpgemmKernel::CudaMaskedDot;
  switch (desc.device) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Cuda:
      return resolve_device(Device::Cuda);
    case Device::Auto:
      break;
  }
  return !cpu_kernel && cuda_available() ? Device::Cuda : Device::Cpu;
}

template <class S, class I>
SpgemmInfo make_info(const MatrixMask& mask, const SparseOperand<I, typename S::value_type>& A,
                     const SparseOperand<I, typename S::value_type>& B,
                     const std::vector<std::int64_t>& flops, const Descriptor& desc) {
  SpgemmInfo info;
  info.semiring = S::kind;
  info.value = value_kind_of<typename S::value_type>();
  info.index = index_kind_of<I>();
  info.rows = A.rows;
  info.cols = B.cols;
  info.inner = A.cols;
  info.nnz_a = A.row_ptr[A.rows];
  info.nnz_b = B.row_ptr[B.rows];
  for (const std::int64_t f : flops) {
    info.flops = spgemm_sat_add(info.flops, f);
    info.max_row_flops = std::max(info.max_row_flops, f);
    info.nonempty_rows += f > 0 ? 1 : 0;
  }
  info.masked = !mask.empty();
  info.mask_complemented = mask.complemented();
  info.mask_entries = mask.selected_entries();
  info.transpose_b_cached = B.transpose_cached;
  info.requested = desc.device;
  info.target = spgemm_target(desc);
  if (info.target == Device::Cuda) {
    const DeviceCaps& caps = device_caps();
    info.smem_per_block = caps.smem_per_block_optin;
    info.device_memory = caps.global_mem_bytes;
  }
  info.threads = cpu_kernels::threads_for_work(info.flops);
  if (info.masked && !info.mask_complemented) {
    // Each mask entry (i,j) intersects A(i,:) with B(:,j): a merge of both, or a search of the
    // shorter into the longer (the kernel's galloping rule).
    const Graph<I, Pattern>& M = mask.pattern<I>();
    const std::vector<I>& bt_len = B.col_counts();
    const I* mrp = M.row_ptr().data();
    const I* mci = M.col_idx().data();
    // Per row in parallel (a pass over every mask entry: 55-105 ms serially on R-MAT 20), then
    // summed in row order, so the estimate is the same on any thread count.
    std::vector<std::int64_t> row_cost(static_cast<std::size_t>(A.rows), 0);
    cpu_kernels::for_each_row_block(mrp, A.rows, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t i = r0; i < r1; ++i) {
        const std::int64_t la = A.row_ptr[i + 1] - A.row_ptr[i];
        if (la == 0) continue;
        std::int64_t cost = 0;
        for (I p = mrp[i]; p < mrp[i + 1]; ++p) {
          const std::int64_t lb = bt_len[mci[p]];
          const std::int64_t lo = std::min(la, lb);
          const std::int64_t hi = std::max(la, lb);
          std::int64_t c = la + lb;
          if (lo * 16 < hi) {
            std::int64_t lg = 1;
            while ((std::int64_t{1} << lg) < hi) ++lg;
            c = lo * lg;
          }
          cost = spgemm_sat_add(cost, c + 1);
        }
        row_cost[static_cast<std::size_t>(i)] = cost;
      }
    });
    std::int64_t cost = 0;
    for (const std::int64_t c : row_cost) cost = spgemm_sat_add(cost, c);
    info.dot_cost = cost;
  }
  return info;
}

// The product's entries are at least Σ_i max_k nnz(B(k,:)) over A(i,k): refusing an impossible
// output (an outer product of 2^20-vectors) takes a pass over A instead of 2^40 products.
template <class I, class T>
void check_lower_bound(const CsrView<I, T>& A, const CsrView<I, T>& B) {
  std::int64_t lb = 0;
  for (std::int64_t i = 0; i < A.rows; ++i) {
    std::int64_t r = 0;
    for (I ka = A.rp[i]; ka < A.rp[i + 1]; ++ka) r = std::max(r, B.len(A.ci[ka]));
    lb = spgemm_sat_add(lb, r);
  }
  check_spgemm_output<I, T>(lb, A.rows, B.cols, "entries at least");
}

struct PlannedCall {
  Plan plan;
  std::vector<std::int64_t> flops;
};

template <class S, class I>
PlannedCall plan_call(const MatrixMask& mask, const SparseOperand<I, typename S::value_type>& A,
                      const SparseOperand<I, typename S::value_type>& B, const Descriptor& desc) {
  PlannedCall pc;
  pc.flops = row_flops(view_of(A), view_of(B));
  pc.plan = plan_spgemm(make_info<S, I>(mask, A, B, pc.flops, desc), desc);
  return pc;
}

// C's new contents from its old ones (`old`, ignored unless kept), the product t and the mask.
template <class I, class T>
Graph<I, T> apply_mask_accum(const Graph<I, T>& old, bool keep_old, CsrArrays<I, T>& t,
                             const MaskView<I>& M, Accum accum, bool replace, std::int64_t rows,
                             std::int64_t cols) {
  if (!M.present() && !accum.enabled) {
    return Graph<I, T>(static_cast<I>(rows), static_cast<I>(cols), std::move(t.rp), std::move(t.ci),
                       std::move(t.v));
  }
  const I* crp = keep_old ? old.row_ptr().data() : nullptr;
  const I* cci = keep_old ? old.col_idx().data() : nullptr;
  const T* cv = keep_old ? old.values().data() : nullptr;
  // Calls emit(j, value) for row i's entries in increasing j; returns their number.
  auto row = [&](std::int64_t i, auto&& emit) {
    std::int64_t n = 0;
    I pc = crp ? crp[i] : 0;
    const I ec = crp ? crp[i + 1] : 0;
    I pt = t.rp[i];
    const I et = t.rp[i + 1];
    I pm = M.present() ? M.rp[i] : 0;
    const I em = M.present() ? M.rp[i + 1] : 0;
    while (pc < ec || pt < et) {
      const bool has_c = pc < ec && (pt >= et || cci[pc] <= t.ci[pt]);
      const bool has_t = pt < et && (pc >= ec || t.ci[pt] <= cci[pc]);
      const I j = has_c ? cci[pc] : t.ci[pt];
      bool sel = true;
      if (M.present()) {
        while (pm < em && M.ci[pm] < j) ++pm;
        sel = (pm < em && M.ci[pm] == j) != M.complement;
      }
      if (sel) {
        if (has_t && has_c && accum.enabled) {
          emit(n++, j, apply_binary(accum.op, cv[pc], t.v[pt]));
        } else if (has_t) {
          emit(n++, j, t.v[pt]);
        } else if (accum.enabled) {
          emit(n++, j, cv[pc]);
        }
      } else if (has_c && !replace) {
        emit(n++, j, cv[pc]);
      }
      if (has_c) ++pc;
      if (has_t) ++pt;
    }
    return n;
  };
  std::vector<std::int64_t> counts(static_cast<std::size_t>(rows) + 1, 0);
  cpu_kernels::for_each_index_block(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      counts[i + 1] = row(i, [](std::int64_t, I, T) {});
    }
  });
  for (std::int64_t i = 0; i < rows; ++i) counts[i + 1] += counts[i];
  check_spgemm_output<I, T>(counts[rows], rows, cols, "entries after the mask and accumulator");
  std::vector<I> rp(static_cast<std::size_t>(rows) + 1);
  for (std::int64_t i = 0; i <= rows; ++i) rp[i] = static_cast<I>(counts[i]);
  std::vector<I> ci = large_workspace<I>(static_cast<std::size_t>(counts[rows]), "mxm: C columns");
  std::vector<T> v = large_workspace<T>(static_cast<std::size_t>(counts[rows]), "mxm: C values");
  cpu_kernels::for_each_index_block(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      I* oc = ci.data() + counts[i];
      T* ov = v.data() + counts[i];
      row(i, [&](std::int64_t o, I j, T x) {
        oc[o] = j;
        ov[o] = x;
      });
    }
  });
  return Graph<I, T>(static_cast<I>(rows), static_cast<I>(cols), std::move(rp), std::move(ci),
                     std::move(v));
}

}  // namespace

template <class S, class I>
Plan plan_for_mxm_sparse_builtin(const MatrixMask& mask,
                                 const SparseOperand<I, typename S::value_type>& A,
                                 const SparseOperand<I, typename S::value_type>& B,
                                 const Descriptor& desc) {
  using T = typename S::value_type;
  Graph<I, T> none;
  check_shapes(none, mask, Accum::none(), A, B, Descriptor(desc).with_replace());
  return plan_call<S, I>(mask, A, B, desc).plan;
}

template <class S, class I>
void mxm_sparse_builtin(Graph<I, typename S::value_type>& C, const MatrixMask& mask, Accum accum,
                        const SparseOperand<I, typename S::value_type>& A,
                        const SparseOperand<I, typename S::value_type>& B, const Descriptor& desc) {
  using T = typename S::value_type;
  if (desc.device == Device::Cuda) resolve_device(Device::Cuda);  // Unsupported without one
  check_shapes(C, mask, accum, A, B, desc);
  const std::int64_t m = A.rows;
  const std::int64_t n = B.cols;
  const bool keep_old = accum.enabled || (!mask.empty() && !desc.replace);
  const Graph<I, T> old = C;  // shares storage: C may be A, B or the mask's source
  MaskView<I> mv;
  if (!mask.empty()) {
    const Graph<I, Pattern>& M = mask.pattern<I>();
    mv.rp = M.row_ptr().data();
    mv.ci = M.col_idx().data();
    mv.complement = mask.complemented();
  }

  CsrArrays<I, T> t;
  const CsrView<I, T> a = view_of(A);
  const CsrView<I, T> b = view_of(B);
  if (m == 0 || n == 0 || a.rp[m] == 0 || b.rp[b.rows] == 0) {
    // Degenerate shapes: no products, every T(i,j) absent.
    t.rp.assign(static_cast<std::size_t>(m) + 1, I(0));
  } else {
    PlannedCall pc = plan_call<S, I>(mask, A, B, desc);
    log_plan(pc.plan);
    const SpgemmKernel k = pc.plan.spgemm;
    if (k == SpgemmKernel::GustavsonDense || k == SpgemmKernel::GustavsonHash) {
      check_lower_bound(a, b);
    }
    const bool dot = k == SpgemmKernel::MaskedDot || k == SpgemmKernel::CudaMaskedDot;
    if (k == SpgemmKernel::CudaRowwise) check_lower_bound(a, b);
    SparseOperand<I, T> bt_op;
    CsrView<I, T> bt;
    if (dot) {
      bt_op = B.transpose();
      bt = view_of(bt_op);
    }
    if (pc.plan.device == Device::Cuda) {
      cuda::spgemm_cuda_host<T, I>(pc.plan, S::kind, a, b, dot ? &bt : nullptr, mv, t);
    } else {
      spgemm_cpu<S, I>(pc.plan, a, b, dot ? &bt : nullptr, mv, pc.flops, t);
    }
  }
  C = apply_mask_accum(old, keep_old, t, mv, accum, desc.replace, m, n);
}

#define SPINDLE_INSTANTIATE_MXM_SPARSE_(S, I, V)                                                  \
  template void mxm_sparse_builtin<S, I>(                                                         \
      Graph<I, S::value_type>&, const MatrixMask&, Accum, const SparseOperand<I, S::value_type>&, \
      const SparseOperand<I, S::value_type>&, const Descriptor&);                                 \
  template Plan plan_for_mxm_sparse_builtin<S, I>(                                                \
      const MatrixMask&, const SparseOperand<I, S::value_type>&,                                  \
      const SparseOperand<I, S::value_type>&, const Descriptor&);
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_MXM_SPARSE_, float, std::int32_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_MXM_SPARSE_, float, std::int64_t, float)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_MXM_SPARSE_, double, std::int32_t, double)
SPINDLE_SEMIRINGS_FOR_(SPINDLE_INSTANTIATE_MXM_SPARSE_, double, std::int64_t, double)

}  // namespace spindle::detail
