// SPDX-License-Identifier: Apache-2.0
// The CUDA entry of the projected SpMM (mxm_project.hpp): Z = ReLU(A·B + bias)·W through
// nnz_balanced_seq's group form with the dense product in its epilogue (spmm_project.cuh).
// float and double, int32 and int64 indices, values as T (GCN's normalized Â).
#include "ops/cuda/mxm/mxm_project.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "engine/src/cuda/device_mirror.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/tuned.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/mxm/spmm_project.cuh"
#include "ops/cuda/mxm/spmm_run.cuh"
#include "spindle/executor.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle::detail::cuda {
namespace {

std::atomic<bool>& project_forced() {
  static std::atomic<bool> forced{false};
  return forced;
}

}  // namespace

void debug_mxm_project_force(bool on) noexcept { project_forced().store(on); }

template <class T, class I>
bool mxm_relu_project(DenseMatrix<T>& Z, const Graph<I, T>& A, const DenseMatrix<T>& B,
                      const Vector<T>& bias, const DenseMatrix<T>& W, const Descriptor& desc) {
  using S = semiring::plus_times<T>;
  constexpr const char* kOp = "mxm_relu_project";
  const std::int64_t n = B.cols();
  const std::int64_t m = W.cols();
  check_dim(kOp, "B", B.rows(), "rows", "A's column count", A.cols());
  check_dim(kOp, "the bias", bias.size(), "entries", "the width N of B", n);
  check_dim(kOp, "W", W.rows(), "rows", "the width N of B", n);
  if (desc.transpose_a || desc.transpose_b || A.rows() == 0 || A.nnz() == 0 || m == 0 ||
      !bias.is_full() || &Z == &B || &Z == &W ||
      !spmm_group_form_fits(n, static_cast<std::int64_t>(sizeof(T)))) {
    return false;
  }
  // The kernel mxm would run for A at width N: forced, tuned or the planner's rule.
  const MxmTuned tuned = tuned_mxm_for<S>(true, A, n);
  const Plan plan = plan_mxm(A.stats(), mxm_info<S, I, T>(n, false, desc), Device::Cuda,
                             device_caps(), desc, tuned.mxm_ptr(), tuned.mxv_ptr());
  if (plan.device != Device::Cuda) return false;
  if (plan.mxm != MxmKernel::NnzBalancedSeq && !project_forced().load()) return false;

  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const DeviceCsr<I, T> d = device_csr<T>(A);
  const SpmmArgs<I, T, T> a = make_spmm_args<S>(d, n, device_in(B), n, static_cast<T*>(nullptr), n);
  const bool group_form = plan.mxm == MxmKernel::NnzBalancedSeq &&
                          plan.params.form == KernelForm::BalancedGroup &&
                          (plan.params.tile == 0 || plan.params.tile >= n);
  const int gvec = balanced_group_vec(a);
  if (!(group_form || project_forced().load()) ||
      !project_fits<T>(n, m, gvec, seq_group_lanes(n, gvec, 0))) {
    return false;
  }
  // A new shape is written into a replacement (made through the allocation hook, as every
  // operation's output) moved in once the launch is queued: a failed allocation below leaves Z
  // as it was.
  OutputStage<DenseMatrix<T>> z_out =
      prepare_dense_output("mxm_relu_project", Z, A.rows(), m, Accum::none(), false);
  ProjectStore<T> p;
  p.bias = device_in(bias).values;
  p.w = device_in(W);
  p.z = device_out(z_out.get(), false);
  p.ldz = m;
  p.n = static_cast<int>(n);
  p.m = static_cast<int>(m);
  const BalancedSetup<I, T, T> setup = prepare_balanced(
      a, static_cast<std::int64_t>(A.nnz()), static_cast<const I*>(nullptr), A, "csr",
      group_form ? plan.params.items_per_worker : 0, 0, BalancedForm::Group, ctx.stream);
  record_launch(plan, OpKind::Mxm, MxmKernel::NnzBalancedSeq);
  launch_balanced_project<I, T>(setup.a, setup.w, p, ctx.stream);
  mark_written(z_out.get());
  z_out.commit();
  if (plan_logging_enabled()) {
    Plan shown = plan;
    shown.mxm = MxmKernel::NnzBalancedSeq;
    shown.reason += (group_form ? "" : " [projected form forced by the test hook]") +
                    std::string(" + ReLU(.+bias).W epilogue, W ") + std::to_string(n) + "x" +
                    std::to_string(m);
    log_plan(shown);
  }
  return true;
}  // the partials are freed stream-ordered, after the kernels

#define SPINDLE_MXM_PROJECT_INST(T, I)                                                             \
  template bool mxm_relu_project<T, I>(DenseMatrix<T>&, const Graph<I, T>&, const DenseMatrix<T>&, \
                                       const Vector<T>&, const DenseMatrix<T>&,                    \
                                       const Descriptor&);
SPINDLE_MXM_PROJECT_INST(float, std::int32_t)
SPINDLE_MXM_PROJECT_INST(float, std::int64_t)
SPINDLE_MXM_PROJECT_INST(double, std::int32_t)
SPINDLE_MXM_PROJECT_INST(double, std::int64_t)
#undef SPINDLE_MXM_PROJECT_INST

}  // namespace spindle::detail::cuda
