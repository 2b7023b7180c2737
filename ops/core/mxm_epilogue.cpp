// SPDX-License-Identifier: Apache-2.0
// Public mxm with a fused epilogue (bias + activation, the GCN layer; spindle/ops/mxm.hpp).
// CUDA: the epilogue runs inside the SpMM kernels' stores (ops/cuda/mxm/mxm_fused.hpp), so C is
// written once. CPU, and degenerate shapes everywhere: composed from mxm, add_row_bias / apply
// and the accumulator, which is the definition the fused path must match.
#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/detail/prologue.hpp"
#include "spindle/ops/mxm.hpp"

namespace spindle {

template <class S, class I, class V>
void mxm(DenseMatrix<typename S::value_type>& C, Accum accum, S s, const Graph<I, V>& A,
         const DenseMatrix<typename S::value_type>& B,
         const MxmEpilogue<typename S::value_type>& epilogue, const Descriptor& desc) {
  using T = typename S::value_type;
  if (epilogue.bias == nullptr && epilogue.act == UnaryOp::Identity) {
    mxm(C, accum, s, A, B, desc);
    return;
  }
  const std::int64_t m = desc.transpose_a ? A.cols() : A.rows();
  const std::int64_t n = desc.transpose_b ? B.rows() : B.cols();
  if (epilogue.bias != nullptr) {
    detail::check_dim("mxm", "the epilogue's bias", epilogue.bias->size(), "entries",
                      "the width N of B", n);
    if (!epilogue.bias->is_full()) {
      throw InvalidArgument("mxm: the epilogue's bias has absent entries; every one of its " +
                            std::to_string(n) + " entries must be present");
    }
  }
  const Unary<T> act = Unary<T>::make(epilogue.act, epilogue.act_scalar);
  const Device device = resolve_device(desc.device);
  if (device == Device::Cuda && m > 0 && n > 0 && A.nnz() > 0) {
    detail::OutputStage<DenseMatrix<T>> out(C);
    if (!detail::mxm_prologue("mxm", out, accum, A, B, desc, S::identity(), false)) return;
    const GraphStats& stats = desc.transpose_a ? A.transpose().stats() : A.stats();
    Plan plan = detail::plan_mxm(stats, detail::mxm_info<S, I, V>(n, accum.enabled, desc), device,
                                 device_caps(), desc);
    if (plan.device == Device::Cuda) {
      plan.reason += " + fused bias/activation epilogue";
      log_plan(plan);
      detail::cuda::mxm_fused<S>(plan, out.get(), accum, A, B, epilogue.bias, act, desc.transpose_a,
                                 desc.transpose_b);
      out.commit();
      return;
    }
    // The plan runs on the host (a forced CPU kernel): composed below; the stage is dropped and C
    // is as it was.
  }
  // Composed: t = A ⊕.⊗ B, then act(t + bias), then C = accum(C, t).
  auto finish = [&](DenseMatrix<T>& t) {
    if (epilogue.bias != nullptr) {
      add_row_bias(t, *epilogue.bias, act, desc);
    } else {
      apply(t, Accum::none(), act, t, desc);
    }
  };
  if (!accum.enabled) {
    if (C.rows() == m && C.cols() == n && device != Device::Cuda) {
      // In place on the host (C's storage is reused): the bias's host array is made first, so
      // that the second step allocates nothing once the first has written C.
      if (epilogue.bias != nullptr) detail::host_inputs(*epilogue.bias);
      mxm(C, Accum::none(), s, A, B, desc);
      finish(C);
      return;
    }
    // A new shape, or CUDA (here only for degenerate shapes or a plan forced to the host, whose
    // second step uploads): both steps write a replacement, moved in once complete (a failure in
    // either leaves C as it was).
    DenseMatrix<T> t;
    mxm(t, Accum::none(), s, A, B, desc);
    finish(t);
    C = std::move(t);
    return;
  }
  if (C.rows() != m || C.cols() != n) {
    throw DimensionMismatch("mxm: C is " + std::to_string(C.rows()) + " x " +
                            std::to_string(C.cols()) + " but the product is " + std::to_string(m) +
                            " x " + std::to_string(n) +
                            " (an accumulator needs C already of that shape)");
  }
  DenseMatrix<T> t;
  mxm(t, Accum::none(), s, A, B, desc);
  finish(t);
  apply(C, accum, Unary<T>{}, t, desc);
}

#define SPINDLE_INSTANTIATE_MXM_EPILOGUE_(S, I, V)                                                 \
  template void mxm<S, I, V>(DenseMatrix<S::value_type>&, Accum, S, const Graph<I, V>&,            \
                             const DenseMatrix<S::value_type>&, const MxmEpilogue<S::value_type>&, \
                             const Descriptor&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXM_EPILOGUE_)

}  // namespace spindle
