// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxm_entry.cuh
/// @brief The CUDA backend entries of mxm (backend.hpp's detail::cuda::mxm and mxm_fused.hpp):
/// operands to the device (cached graph copies, container mirrors), transpose_b by an explicit
/// transpose, then run_spmm with the complete plan (plan_mxm_cuda). Semirings without
/// specialized SpMM kernels and plans of the generic kernel run through generic_entry.hpp. The
/// entry files (mxm_entry_*.cu) declare the kernel families extern (families.hpp).

#include <mutex>

#include "engine/src/cuda/device_mirror.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/generic/generic_entry.hpp"
#include "ops/cuda/mxm/families.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "ops/cuda/mxm/semiring_identity.hpp"
#include "ops/cuda/mxm/spmm_run.cuh"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail::cuda {

/// Semirings whose multiply ignores both operands (pair): the matrix's values are never read,
/// so the graph runs as a pattern (4 bytes less per entry).
template <class S>
constexpr bool ignores_values_v =
    S::kind == SemiringKind::AnyPair || S::kind == SemiringKind::PlusPair;

/// The specialized path of mxm_fused (semirings precompiled for mxm).
template <class S, class I, class V>
void run_mxm_specialized(const Plan& plan, DenseMatrix<typename S::value_type>& C, Accum accum,
                         const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B,
                         const Vector<typename S::value_type>* bias,
                         Unary<typename S::value_type> act, bool transpose_a, bool transpose_b) {
  using T = typename S::value_type;
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const Graph<I, V>& G = transpose_a ? A.transpose() : A;
  const DenseOperand<T> bop = dense_operand(B, transpose_b, "mxm: B transposed", ctx.stream);
  const T* b = bop.data;
  const std::int64_t ldb = bop.ld;
  DenseEpilogue<T> epi;
  epi.bias = bias != nullptr ? device_in(*bias).values : nullptr;
  epi.act = act.op;
  epi.act_scalar = act.scalar;
  epi.accum = accum;
  T* c = device_out(C, accum.enabled);
  constexpr bool kPattern = is_pattern_v<V> || ignores_values_v<S>;
  auto run = [&](const auto& d) {
    run_spmm<S>(plan, make_spmm_args<S>(d, C.cols(), b, ldb, c, C.cols(), epi), G, ctx.stream);
  };
  if constexpr (kPattern) {
    run(device_pattern(G));
  } else {
    run(device_csr<T>(G));
  }
  mark_written(C);
}

template <class S, class I, class V>
void mxm_fused(const Plan& plan, DenseMatrix<typename S::value_type>& C, Accum accum,
               const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B,
               const Vector<typename S::value_type>* bias, Unary<typename S::value_type> act,
               bool transpose_a, bool transpose_b) {
  if constexpr (cuda_precompiled(OpKind::Mxm, S::kind)) {
    if (plan.mxm != MxmKernel::Generic) {
      run_mxm_specialized<S>(plan, C, accum, A, B, bias, act, transpose_a, transpose_b);
      return;
    }
  }
  generic_mxm(plan, builtin_generic<S>(), C, accum, A, B, bias, act, transpose_a, transpose_b);
}

template <class S, class I, class V>
void mxm(const Plan& plan, DenseMatrix<typename S::value_type>& C, Accum accum,
         const Graph<I, V>& A, const DenseMatrix<typename S::value_type>& B, bool transpose_a,
         bool transpose_b) {
  mxm_fused<S>(plan, C, accum, A, B, nullptr, Unary<typename S::value_type>{}, transpose_a,
               transpose_b);
}

template <class S, class I, class V>
TuneResult tune_mxm_impl(const Graph<I, V>& A, std::int64_t n, const TuneOptions& options) {
  using T = typename S::value_type;
  constexpr bool kPattern = is_pattern_v<V> || ignores_values_v<S>;
  TuneResult r;
  const std::string key = tuned_key("mxm", n, S::kind, value_kind_of<T>(), kPattern);
  if (auto p = find_tuned(A, key)) {
    r.best = *p;
    r.from_cache = true;
    return r;
  }
  if (n < 1) throw InvalidArgument("tune_mxm: the width N must be >= 1");
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  DeviceBuffer b(static_cast<std::size_t>(A.cols() * n) * sizeof(T), "tune_mxm operand");
  DeviceBuffer c(static_cast<std::size_t>(A.rows() * n) * sizeof(T), "tune_mxm output");
  launch_fill_random<T>(b.as<T>(), A.cols() * n, 12345, ctx.stream);
  SPINDLE_CUDA_CHECK_LAUNCH("fill_random");
  const MxmInfo info = mxm_info<S, I, V>(n, false, Descriptor{});
  const Plan planned = plan_mxm_cuda(A.stats(), info, device_caps(), Descriptor{});
  if constexpr (cuda_precompiled(OpKind::Mxm, S::kind)) {
    auto run = [&](const auto& d) {
      r.candidates = time_spmm_candidates<S>(
          planned, info, make_spmm_args<S>(d, n, b.as<const T>(), n, c.as<T>(), n), A, ctx.stream,
          options.repetitions > 0 ? options.repetitions : 3);
    };
    if constexpr (kPattern) {
      run(device_pattern(A));
    } else {
      run(device_csr<T>(A));
    }
  } else {
    // Only the generic kernel runs this semiring: it is the one candidate.
    DenseMatrix<T> Bm(A.cols(), n, T(1));
    DenseMatrix<T> Cm(A.rows(), n, T(0));
    r.candidates.emplace_back(planned, median_ms(
                                           [&] {
                                             generic_mxm(planned, builtin_generic<S>(), Cm,
                                                         Accum::none(), A, Bm,
                                                         static_cast<const Vector<T>*>(nullptr),
                                                         Unary<T>{}, false, false);
                                           },
                                           options.repetitions > 0 ? options.repetitions : 3));
  }
  r.best = pick_tuned(r.candidates, "on this graph for N = " + std::to_string(n), &spmm_label);
  for (const auto& c2 : r.candidates) {
    if (r.best_ms == 0.0 || c2.second < r.best_ms) r.best_ms = c2.second;
  }
  store_tuned(A, key, r.best);
  return r;
}

}  // namespace spindle::detail::cuda

namespace spindle {
template <class S, class I, class V>
TuneResult tune_mxm(const Graph<I, V>& A, std::int64_t n, const TuneOptions& options) {
  return detail::cuda::tune_mxm_impl<S>(A, n, options);
}
}  // namespace spindle

/// Instantiates both entries for one (S, I, V) of instantiate.hpp's lists.
#define SPINDLE_INSTANTIATE_CUDA_MXM_(S, I, V)                                                  \
  template void spindle::detail::cuda::mxm<S, I, V>(                                            \
      const ::spindle::Plan&, ::spindle::DenseMatrix<S::value_type>&, ::spindle::Accum,         \
      const ::spindle::Graph<I, V>&, const ::spindle::DenseMatrix<S::value_type>&, bool, bool); \
  template void spindle::detail::cuda::mxm_fused<S, I, V>(                                      \
      const ::spindle::Plan&, ::spindle::DenseMatrix<S::value_type>&, ::spindle::Accum,         \
      const ::spindle::Graph<I, V>&, const ::spindle::DenseMatrix<S::value_type>&,              \
      const ::spindle::Vector<S::value_type>*, ::spindle::Unary<S::value_type>, bool, bool);    \
  template ::spindle::TuneResult spindle::tune_mxm<S, I, V>(                                    \
      const ::spindle::Graph<I, V>&, std::int64_t, const ::spindle::TuneOptions&);

/// Declares the SpMM kernel families of every semiring precompiled for mxm over T (families.hpp).
#define SPINDLE_CUDA_MXM_EXTERN_(S, T, I, VV) SPINDLE_MXM_FAMILIES(extern, S, T, I, VV)
#define SPINDLE_CUDA_MXM_EXTERN_S_(S, VVS)                      \
  VVS(SPINDLE_CUDA_MXM_EXTERN_, S, S::value_type, std::int32_t) \
  VVS(SPINDLE_CUDA_MXM_EXTERN_, S, S::value_type, std::int64_t)
#define SPINDLE_CUDA_MXM_EXTERN_FAMILIES(T)                 \
  namespace spindle::detail::cuda {                         \
  SPINDLE_CUDA_MXM_SEMIRINGS(SPINDLE_CUDA_MXM_EXTERN_S_, T) \
  }
