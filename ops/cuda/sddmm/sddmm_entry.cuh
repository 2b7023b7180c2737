// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sddmm_entry.cuh
/// @brief The CUDA backend entry of sddmm (backend.hpp's detail::cuda::sddmm). The output is a
/// host std::vector aligned with S's entries: it is uploaded only when an accumulator reads it,
/// and downloaded once at the end.

#include <mutex>
#include <vector>

#include "engine/src/cuda/device_mirror.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/generic/generic_entry.hpp"
#include "ops/cuda/mxm/dense_util.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "ops/cuda/mxm/semiring_identity.hpp"
#include "ops/cuda/sddmm/families.hpp"
#include "ops/cuda/sddmm/sddmm_run.cuh"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail::cuda {

template <class Sr, class I, class V>
void sddmm_specialized(const Plan& plan, std::vector<typename Sr::value_type>& out, Accum accum,
                       const Graph<I, V>& S, const DenseMatrix<typename Sr::value_type>& X,
                       const DenseMatrix<typename Sr::value_type>& Y, bool transpose_b) {
  using T = typename Sr::value_type;
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t nnz = S.nnz();
  const T* x = device_in(X);
  // op(Y) = Yᵀ: Y is K x cols(S).
  const DenseOperand<T> yop = dense_operand(Y, transpose_b, "sddmm: Y transposed", ctx.stream);
  const T* y = yop.data;
  const std::int64_t ldy = yop.ld;
  DeviceBuffer d_out(static_cast<std::size_t>(nnz) * sizeof(T), "sddmm output");
  if (accum.enabled) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(d_out.get(), out.data(), d_out.bytes(),
                                       cudaMemcpyHostToDevice, ctx.stream));
  }
  const DeviceCsr<I, Pattern> structure = device_pattern(S);
  auto run = [&](const auto* vals) {
    using VV = std::remove_const_t<std::remove_pointer_t<decltype(vals)>>;
    SddmmArgs<I, VV, T> a;
    a.nnz = nnz;
    a.k = X.cols();
    a.col_idx = structure.col_idx;
    a.vals = vals;
    a.x = x;
    a.ldx = X.cols();
    a.y = y;
    a.ldy = ldy;
    a.out = d_out.as<T>();
    a.accum = accum;
    a.identity = identity_of<Sr>();
    run_sddmm<Sr>(plan, a, structure, S, ctx.stream);
  };
  if constexpr (is_pattern_v<V>) {
    run(static_cast<const Pattern*>(nullptr));
  } else {
    run(device_csr<T>(S).values);
  }
  SPINDLE_CUDA_CHECK(
      cudaMemcpyAsync(out.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, ctx.stream));
  ctx.synchronize();
}

template <class Sr, class I, class V>
void sddmm(const Plan& plan, std::vector<typename Sr::value_type>& out, Accum accum,
           const Graph<I, V>& S, const DenseMatrix<typename Sr::value_type>& X,
           const DenseMatrix<typename Sr::value_type>& Y, bool transpose_b) {
  if constexpr (cuda_precompiled(OpKind::Sddmm, Sr::kind)) {
    if (plan.sddmm != SddmmKernel::Generic) {
      sddmm_specialized<Sr>(plan, out, accum, S, X, Y, transpose_b);
      return;
    }
  }
  generic_sddmm(plan, builtin_generic<Sr>(), out, accum, S, X, Y, transpose_b);
}

template <class Sr, class I, class V>
TuneResult tune_sddmm_impl(const Graph<I, V>& S, std::int64_t k, const TuneOptions& options) {
  using T = typename Sr::value_type;
  TuneResult r;
  const std::string key = tuned_key("sddmm", k, Sr::kind, value_kind_of<T>(), is_pattern_v<V>);
  if (auto p = find_tuned(S, key)) {
    r.best = *p;
    r.from_cache = true;
    return r;
  }
  if (k < 1) throw InvalidArgument("tune_sddmm: the inner dimension K must be >= 1");
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  DeviceBuffer x(static_cast<std::size_t>(S.rows() * k) * sizeof(T), "tune_sddmm operand");
  DeviceBuffer y(static_cast<std::size_t>(S.cols() * k) * sizeof(T), "tune_sddmm operand");
  DeviceBuffer out(static_cast<std::size_t>(S.nnz()) * sizeof(T), "tune_sddmm output");
  launch_fill_random<T>(x.as<T>(), S.rows() * k, 111, ctx.stream);
  launch_fill_random<T>(y.as<T>(), S.cols() * k, 222, ctx.stream);
  SPINDLE_CUDA_CHECK_LAUNCH("fill_random");
  const SddmmInfo info = sddmm_info<Sr, I, V>(k, false, Descriptor{});
  const Plan planned = plan_sddmm_cuda(S.stats(), info, device_caps(), Descriptor{});
  const DeviceCsr<I, Pattern> structure = device_pattern(S);
  const int reps = options.repetitions > 0 ? options.repetitions : 3;
  if constexpr (!cuda_precompiled(OpKind::Sddmm, Sr::kind)) {
    // Only the generic kernel runs this semiring: it is the one candidate.
    DenseMatrix<T> Xm(S.rows(), k, T(1));
    DenseMatrix<T> Ym(S.cols(), k, T(1));
    std::vector<T> o(static_cast<std::size_t>(S.nnz()));
    r.candidates.emplace_back(planned, median_ms(
                                           [&] {
                                             generic_sddmm(planned, builtin_generic<Sr>(), o,
                                                           Accum::none(), S, Xm, Ym, false);
                                           },
                                           reps));
  } else {
    auto run = [&](const auto* vals) {
      using VV = std::remove_const_t<std::remove_pointer_t<decltype(vals)>>;
      SddmmArgs<I, VV, T> a;
      a.nnz = S.nnz();
      a.k = k;
      a.col_idx = structure.col_idx;
      a.vals = vals;
      a.x = x.as<const T>();
      a.ldx = k;
      a.y = y.as<const T>();
      a.ldy = k;
      a.out = out.as<T>();
      a.identity = identity_of<Sr>();
      for (SddmmKernel kk : {SddmmKernel::Vct, SddmmKernel::Iir, SddmmKernel::Wmt}) {
        Plan p = planned;
        p.sddmm = kk;
        if (!finalize_sddmm_cuda(p, S.stats(), info).empty()) continue;
        r.candidates.emplace_back(
            p, median_ms([&] { run_sddmm<Sr>(p, a, structure, S, ctx.stream); }, reps));
      }
    };
    if constexpr (is_pattern_v<V>) {
      run(static_cast<const Pattern*>(nullptr));
    } else {
      run(device_csr<T>(S).values);
    }
  }
  r.best = pick_tuned(r.candidates, "on this graph for K = " + std::to_string(k),
                      [](const Plan& p) { return std::string(to_string(p.sddmm)); });
  for (const auto& c : r.candidates) {
    if (r.best_ms == 0.0 || c.second < r.best_ms) r.best_ms = c.second;
  }
  store_tuned(S, key, r.best);
  return r;
}

}  // namespace spindle::detail::cuda

namespace spindle {
template <class Sr, class I, class V>
TuneResult tune_sddmm(const Graph<I, V>& S, std::int64_t k, const TuneOptions& options) {
  return detail::cuda::tune_sddmm_impl<Sr>(S, k, options);
}
}  // namespace spindle

#define SPINDLE_INSTANTIATE_CUDA_SDDMM_(S, I, V)                                   \
  template void spindle::detail::cuda::sddmm<S, I, V>(                             \
      const ::spindle::Plan&, std::vector<S::value_type>&, ::spindle::Accum,       \
      const ::spindle::Graph<I, V>&, const ::spindle::DenseMatrix<S::value_type>&, \
      const ::spindle::DenseMatrix<S::value_type>&, bool);                         \
  template ::spindle::TuneResult spindle::tune_sddmm<S, I, V>(                     \
      const ::spindle::Graph<I, V>&, std::int64_t, const ::spindle::TuneOptions&);

/// Declares the SDDMM kernel families of every semiring precompiled for sddmm over T.
#define SPINDLE_CUDA_SDDMM_EXTERN_(S, T, I, VV) SPINDLE_SDDMM_FAMILIES(extern, S, T, I, VV)
#define SPINDLE_CUDA_SDDMM_EXTERN_S_(S, VVS)                      \
  VVS(SPINDLE_CUDA_SDDMM_EXTERN_, S, S::value_type, std::int32_t) \
  VVS(SPINDLE_CUDA_SDDMM_EXTERN_, S, S::value_type, std::int64_t)
#define SPINDLE_CUDA_SDDMM_EXTERN_FAMILIES(T)                   \
  namespace spindle::detail::cuda {                             \
  SPINDLE_CUDA_SDDMM_SEMIRINGS(SPINDLE_CUDA_SDDMM_EXTERN_S_, T) \
  }
