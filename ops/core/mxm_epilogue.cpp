// SPDX-License-Identifier: Apache-2.0
// Public mxm with a fused epilogue (bias + activation, the GCN layer; spindle/ops/mxm.hpp).
// CUDA: the epilogue runs inside the SpMM kernels' stores (ops/cuda/mxm/mxm_fused.hpp), so C is
// written once. CPU, and degenerate shapes everywhere: composed from mxm, add_row_bias / apply
// and the accumulator, which is the definition the fused path must match.
#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/detail/prologue.hpp"
#include "spindle/ops/mxm.hpp"

namespace spindle {

namespace detail {

template <class T>
void finish_mxm_epilogue(DenseMatrix<T>& C, Accum accum, DenseMatrix<T>& t,
                         const MxmEpilogue<T>& epilogue, const Descriptor& desc) {
  const Unary<T> act = Unary<T>::make(epilogue.act, epilogue.act_scalar);
  if (epilogue.bias != nullptr) {
    add_row_bias(t, *epilogue.bias, act, desc);
  } else if (act.op != UnaryOp::Identity) {
    apply(t, Accum::none(), act, t, desc);
  }
  if (!accum.enabled) {
    C = std::move(t);
    return;
  }
  if (C.rows() != t.rows() || C.cols() != t.cols()) {
    throw DimensionMismatch("mxm: C is " + std::to_string(C.rows()) + " x " +
                            std::to_string(C.cols()) + " but the product is " +
                            std::to_string(t.rows()) + " x " + std::to_string(t.cols()) +
                            " (an accumulator needs C already of that shape)");
  }
  apply(C, accum, Unary<T>{}, t, desc);
}

template <class S, class I, class V>
void mxm_epilogue_builtin(DenseMatrix<typename S::value_type>& C, Accum accum, const Graph<I, V>& A,
                          const DenseMatrix<typename S::value_type>& B,
                          const MxmEpilogue<typename S::value_type>& epilogue,
                          const Descriptor& desc) {
  using T = typename S::value_type;
  const S s{};
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
    const Graph<I, V>& G = desc.transpose_a ? A.transpose() : A;
    detail::MxmInfo info = detail::mxm_info<S, I, V>(n, accum.enabled, desc);
    info.epilogue = true;
    const detail::MxmTuned tuned = detail::tuned_mxm_for<S>(true, G, n);
    Plan plan = detail::plan_mxm(G.stats(), info, device, device_caps(), desc, tuned.mxm_ptr(),
                                 tuned.mxv_ptr());
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
  if (!accum.enabled && C.rows() == m && C.cols() == n && device != Device::Cuda) {
    // In place on the host (C's storage is reused): the bias's host array is made first, so
    // that the second step allocates nothing once the first has written C.
    if (epilogue.bias != nullptr) detail::host_inputs(*epilogue.bias);
    mxm(C, Accum::none(), s, A, B, desc);
    if (epilogue.bias != nullptr) {
      add_row_bias(C, *epilogue.bias, act, desc);
    } else {
      apply(C, Accum::none(), act, C, desc);
    }
    return;
  }
  // A new shape, CUDA (here only for degenerate shapes or a plan forced to the host, whose second
  // step uploads) or an accumulator: both steps write a replacement, moved in (or accumulated)
  // once complete, so a failure in either leaves C as it was.
  DenseMatrix<T> t;
  mxm(t, Accum::none(), s, A, B, desc);
  finish_mxm_epilogue(C, accum, t, epilogue, desc);
}

template void finish_mxm_epilogue<float>(DenseMatrix<float>&, Accum, DenseMatrix<float>&,
                                         const MxmEpilogue<float>&, const Descriptor&);
template void finish_mxm_epilogue<double>(DenseMatrix<double>&, Accum, DenseMatrix<double>&,
                                          const MxmEpilogue<double>&, const Descriptor&);

#define SPINDLE_INSTANTIATE_MXM_EPILOGUE_(S, I, V)                                               \
  template void mxm_epilogue_builtin<S, I, V>(                                                   \
      DenseMatrix<S::value_type>&, Accum, const Graph<I, V>&, const DenseMatrix<S::value_type>&, \
      const MxmEpilogue<S::value_type>&, const Descriptor&);
SPINDLE_FOR_EACH_SEMIRING(SPINDLE_INSTANTIATE_MXM_EPILOGUE_)

}  // namespace detail
}  // namespace spindle
