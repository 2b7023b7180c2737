// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxv_entry.cuh
/// @brief The CUDA backend's mxv / vxm (declared in ops/core/backend.hpp): device residency of
/// the operands, the output's presence bookkeeping, and the switch from plan.mxv to one kernel
/// family (one .cuh each). The plan arrives complete (plan_mxv_cuda / finalize_mxv_cuda): this
/// code decides nothing, it dispatches. The kernel families are instantiated in translation units
/// of their own (families.hpp); the entry files ops/cuda/mxv/mxv_entry_*.cu declare them extern.
/// Semirings without specialized kernels in this build (cuda_precompiled) and plans of the
/// generic kernel run through ops/cuda/generic/generic_entry.hpp.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/backend.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "ops/cuda/cusparse/spmv.hpp"
#include "ops/cuda/generic/generic_entry.hpp"
#include "ops/cuda/mxv/column_segmented.cuh"
#include "ops/cuda/mxv/families.hpp"
#include "ops/cuda/mxv/merge_path.cuh"
#include "ops/cuda/mxv/nnz_split_segmented.cuh"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "ops/cuda/mxv/row_per_thread.cuh"
#include "ops/cuda/mxv/sliced_coo.cuh"
#include "ops/cuda/mxv/spmv_dense.hpp"
#include "ops/cuda/mxv/subwarp_per_row.cuh"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail::cuda {

/// row_block over relabelled columns reads the first kHotBytes of u through L1 and the rest around
/// it (row_block.cuh); its warp form copies its own, larger hot set into shared memory
/// (row_block_warp.cuh, kRowBlockWarpSmemBudget). 128 KB:
/// in an exploration harness (H100, R-MAT scale 22, fp32) hot sets of
/// 32768 / 65536 / 16384 columns ran 0.453 / 0.472 / 0.464 ms (values) and 0.394 / 0.413 / 0.406 ms
/// (pattern).
inline constexpr std::int64_t kHotBytes = 128 * 1024;
/// No column is cold (plain reads everywhere): the graph's columns are in their own order.
inline constexpr std::int64_t kAllHot = INT64_MAX;
/// Graphs with fewer entries are launch-bound: row_block keeps long rows in one block
/// (partition.hpp, kRowBlockSmallGraphLongFactor). The planner's small-graph bound (kSmallNnz,
/// where it plans row_block's small form).
inline constexpr std::int64_t kRowBlockOneLaunchBelowNnz = std::int64_t{1} << 17;

/// out[i] = x[perm[i]]: u in relabelled column order (partition.hpp's ColumnRelabel).
template <class T, class I>
void launch_gather(const T* x, const I* perm, std::int64_t n, T* out, cudaStream_t stream);

/// For the mxv kernels, LaunchParams::tile == kRelabelColumns selects the in-degree column
/// relabelling (partition.hpp): gathers of u hit packed, hot lines. (tile has no other meaning
/// for mxv; cuSPARSE uses it to pick its algorithm.)
inline constexpr int kRelabelColumns = 1;

/// y's presence on the simple path, for the kernels that write only values (cuSPARSE, which
/// writes 0 for empty rows, and the runs kernel): a row has a term exactly when it has entries, so
/// `present` is a copy of the graph's cached bytes (row_presence_bytes). Written scattered beside y
/// they cost the runs kernel 0.022 ms on R-MAT 22 (H200); a pass over the row offsets each
/// call 0.013 ms; the copy 0.006 ms. Nothing to do when the output keeps no presence.
template <class I, class V>
void copy_row_presence(const Graph<I, V>& M, std::uint8_t* present, cudaStream_t stream) {
  if (present == nullptr || M.rows() == 0) return;
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(present, row_presence_bytes(M),
                                     static_cast<std::size_t>(M.rows()), cudaMemcpyDeviceToDevice,
                                     stream));
}

/// The block form's loads (row_block.cuh) for the plan's form.
inline RowBlockForm row_block_form(KernelForm f) {
  switch (f) {
    case KernelForm::RowBlockSmall:
      return RowBlockForm::Small;
    case KernelForm::RowBlockStreaming:
      return RowBlockForm::Streaming;
    default:
      return RowBlockForm::L2Resident;
  }
}

[[noreturn]] void throw_incomplete_mxv_plan(const Plan& plan);

/// Launches the kernel family of `plan` (complete: its form and parameters are final) over the
/// rows of M.
template <class S, bool kGeneral, class T, class I, class VV, class G>
void launch_mxv_kernel(const Plan& plan, const G& M, const MxvArgs<T, I, VV>& a, std::int64_t hot,
                       cudaStream_t stream) {
  Context& ctx = context();
  const LaunchParams& p = plan.params;
  record_launch(plan, plan.op, plan.mxv);
  switch (plan.mxv) {
    case MxvKernel::RowPerThread:
      if constexpr (!kGeneral) {
        launch_row_per_thread<S, false>(a, p.block_threads, stream);
        break;
      }
      throw_incomplete_mxv_plan(plan);
    case MxvKernel::SubwarpPerRow:
      launch_subwarp_per_row<S, kGeneral>(a, p.lanes_per_row, p.block_threads, stream);
      break;
    case MxvKernel::NnzSplitSegmented:
      if constexpr (!kGeneral) {
        const NnzSplitPartition part = nnz_split_partition(M, p.items_per_worker);
        void* ws = ctx.scratch(ChunkPartials<T>::bytes(part.chunks));
        launch_nnz_split<S, false>(a, p.items_per_worker, part.chunks, part.chunk_row, ws, stream);
        break;
      }
      throw_incomplete_mxv_plan(plan);
    case MxvKernel::MergePath:
      if constexpr (!kGeneral) {
        const int k = static_cast<int>(p.items_per_worker);
        const MergePathPartition part = merge_path_partition(M, k);
        void* ws = ctx.scratch(ChunkPartials<T>::bytes(part.tiles));
        launch_merge_path<S, false>(a, k, part.tiles, part.tile_x, part.tile_y, ws, stream);
        break;
      }
      throw_incomplete_mxv_plan(plan);
    case MxvKernel::RowBlock: {
      if (p.form == KernelForm::RowBlockWarp) {
        if constexpr (!kGeneral) {
          // The warp form (row_block_warp.cuh), one task per warp: 4-byte types take runs of
          // whole rows up to 256 entries reduced by a segmented scan, the others row_block's runs
          // (rows over 64 entries alone) reduced by lane groups.
          constexpr bool kRuns = kRowBlockWarpRuns<T, I>;
          const DeviceCaps& caps = device_caps();
          const RowBlockPartition part =
              kRuns ? row_block_warp_run_partition(M) : row_block_warp_partition(M);
          void* ws = part.pieces > 0
                         ? ctx.scratch(static_cast<std::size_t>(part.pieces) * (sizeof(T) + 1))
                         : nullptr;
          MxvArgs<T, I, VV> ar = a;
          if constexpr (kRuns) {
            // It writes only y's values: the presence bytes are the graph's cached ones.
            copy_row_presence(M, a.out.present, stream);
            ar.out.present = nullptr;
          }
          launch_row_block_warp_dispatch<S>(ar, part.blocks, part.desc, part.n_long, part.longs,
                                            part.pieces, ws, hot == kAllHot ? 0 : hot,
                                            caps.sm_count, caps.smem_per_block_optin, stream);
          break;
        }
        throw_incomplete_mxv_plan(plan);
      }
      if (p.form == KernelForm::Default || (p.block_threads != 128 && p.block_threads != 256)) {
        throw_incomplete_mxv_plan(plan);
      }
      // Small (launch-bound) graphs: long rows up to 8 NB in one block, usually one launch.
      const std::int64_t long_factor = M.nnz() < kRowBlockOneLaunchBelowNnz
                                           ? kRowBlockSmallGraphLongFactor
                                           : kRowBlockLongFactor;
      const RowBlockPartition part = row_block_partition(M, p.block_threads, long_factor);
      void* ws = part.pieces > 0
                     ? ctx.scratch(static_cast<std::size_t>(part.pieces) * (sizeof(T) + 1))
                     : nullptr;
      launch_row_block<S, kGeneral>(a, p.block_threads, part.blocks, part.desc, part.n_long,
                                    part.longs, part.pieces, ws, hot, row_block_form(p.form),
                                    stream);
      break;
    }
    case MxvKernel::ColumnSegmented:
      if constexpr (!kGeneral) {
        // Ranges of p.items_per_worker columns (the planner sized them from the device's L2);
        // the passes write y's values, its presence is the graph's cached one.
        const ColumnSegments<I, VV> L =
            column_segments_layout<T>(M, a.A, p.items_per_worker, p.tile == kRelabelColumns);
        copy_row_presence(M, a.out.present, stream);
        launch_column_segmented<S>(a, L, stream);
        break;
      }
      throw_incomplete_mxv_plan(plan);
    case MxvKernel::SlicedCoo: {
      bool fits = false;
      const SlicedCoo<I, VV> L = sliced_coo_layout<T, VV>(M, p.items_per_worker, fits);
      if (!fits) throw_incomplete_mxv_plan(plan);
      launch_sliced_coo<S, kGeneral>(a, L, p.items_per_worker, stream);
      break;
    }
    default:
      throw_incomplete_mxv_plan(plan);
  }
  SPINDLE_CUDA_CHECK_LAUNCH(to_string(plan.mxv));
}

/// Runs `plan` over M with the operands in `a`: u (and on the general path its presence)
/// relabelled first when the plan asks for it (tile 1), or cuSPARSE.
template <class S, bool kGeneral, class T, class I, class V, class VV>
void launch_planned_mxv(const Plan& plan, const Graph<I, V>& M, MxvArgs<T, I, VV> a,
                        cudaStream_t stream) {
  Context& ctx = context();
  std::int64_t hot = kAllHot;
  if (plan.mxv != MxvKernel::Cusparse && plan.params.tile == kRelabelColumns) {
    // Only columns with entries get new ids [0, used): the rest of u is never read. The general
    // path gathers u's presence bytes too (after the values, in the same scratch); masks,
    // accumulators and the output are per row and keep the rows' own order.
    const ColumnRelabel rl = column_relabel(M);
    const std::size_t used = static_cast<std::size_t>(std::max<std::int64_t>(rl.used, 1));
    const std::size_t value_bytes = (used * sizeof(T) + 15) / 16 * 16;
    const bool gather_presence = kGeneral && a.u_present != nullptr;
    auto* scratch =
        static_cast<unsigned char*>(ctx.input_scratch(value_bytes + (gather_presence ? used : 0)));
    T* relabelled = reinterpret_cast<T*>(scratch);
    std::uint8_t* relabelled_present = gather_presence ? scratch + value_bytes : nullptr;
    // Debug runs (outputs poisoned): the scratch too, so a gather that a change skips (or one that
    // covers too few columns) shows as NaN values or absent entries read as present.
    if (poisoning_outputs()) {
      SPINDLE_CUDA_CHECK(
          cudaMemsetAsync(scratch, 0xFF, value_bytes + (gather_presence ? used : 0), stream));
    }
    if (rl.used > 0) {
      launch_gather(a.u, static_cast<const I*>(rl.perm), rl.used, relabelled, stream);
      if (gather_presence) {
        launch_gather(a.u_present, static_cast<const I*>(rl.perm), rl.used, relabelled_present,
                      stream);
      }
    }
    a.A.col_idx = static_cast<const I*>(rl.col_idx);
    a.u = relabelled;
    if (gather_presence) a.u_present = relabelled_present;
    // The warp form copies its hot columns into shared memory and takes more of them
    // (row_block_warp_hot_entries); the other kernels read theirs through L1.
    hot = std::min(plan.params.form == KernelForm::RowBlockWarp
                       ? row_block_warp_hot_entries<T>()
                       : kHotBytes / static_cast<std::int64_t>(sizeof(T)),
                   rl.used);
  }
  if (plan.mxv == MxvKernel::Cusparse) {
    if constexpr (S::kind == SemiringKind::PlusTimes && !kGeneral) {
      record_launch(plan, plan.op, plan.mxv);
      const DeviceCsr<I, T> dv = device_csr<T>(M);
      // For cuSPARSE, params.tile picks the algorithm: 2 = CSR_ALG2, else ALG_DEFAULT.
      CusparseSpmv<T, I> spmv(dv, a.u, a.out.w,
                              plan.params.tile == 2 ? CusparseAlg::CsrAlg2 : CusparseAlg::Default);
      spmv.run();
      copy_row_presence(M, a.out.present, stream);
      return;
    }
    throw_incomplete_mxv_plan(plan);
  }
  launch_mxv_kernel<S, kGeneral>(plan, M, a, hot, stream);
}

/// The values the kernels read from M: none (Pattern) for pattern graphs and for semirings whose
/// multiply ignores A's value (half the bytes), else M's values as T.
template <class S, class V>
using MxvValues = std::conditional_t<is_pattern_v<V> || S::kind == SemiringKind::AnyPair ||
                                         S::kind == SemiringKind::PlusPair,
                                     Pattern, typename S::value_type>;

/// Kernel arguments with M on the device and the semiring's constants; u and the output are the
/// caller's to set.
template <class S, class I, class V>
MxvArgs<typename S::value_type, I, MxvValues<S, V>> mxv_args_for(const Graph<I, V>& M) {
  using T = typename S::value_type;
  MxvArgs<T, I, MxvValues<S, V>> a;
  if constexpr (is_pattern_v<MxvValues<S, V>>) {
    a.A = device_pattern(M);
  } else {
    a.A = device_csr<T>(M);
  }
  a.identity = S::identity();
  a.terminal = S::terminal();
  a.out.identity = a.identity;
  return a;
}

/// w<mask> = accum(w, M ⊕.⊗ u) over the rows of M (A, or A^T for transposed calls and vxm).
template <class S, class T, class I, class V>
void run_pull(const Plan& plan, Vector<T>& w, const Mask& mask, Accum accum, const Graph<I, V>& M,
              const Vector<T>& u, bool replace) {
  static_assert(std::is_same_v<typename S::value_type, T>);
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const GraphStats& st = M.stats();
  if (st.rows == 0) return;

  const VecIn<T> uin = device_in(u);
  const bool u_full = uin.presence == nullptr;
  const DeviceMask dm = device_mask(mask);
  const bool no_mask = dm.none && !dm.complement;
  const bool general = !(no_mask && !accum.enabled && u_full);
  const bool t_full = u_full && st.empty_rows == 0;  // every output row has a term
  const OutputRule rule = output_rule(no_mask, accum.enabled, replace, t_full);
  const VecOut<T> wout = device_out(w, rule.keep_old, rule.may_be_sparse());
  const bool full = rule.result_full(wout.old_full);

  auto a = mxv_args_for<S>(M);
  a.u = uin.values;
  a.u_present = uin.presence;
  a.out.w = wout.values;
  a.out.present = wout.presence;
  a.out.mask = dm;
  a.out.accum = accum;
  a.out.replace = replace;

  if (general) {
    launch_planned_mxv<S, true>(plan, M, a, ctx.stream);
  } else {
    launch_planned_mxv<S, false>(plan, M, a, ctx.stream);
  }
  mark_written(w, full);
}

template <class S, class I, class V>
void mxv(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u, bool transpose_a,
         bool replace) {
  const Graph<I, V>& M = transpose_a ? A.transpose() : A;
  if constexpr (cuda_precompiled(OpKind::Mxv, S::kind)) {
    if (plan.mxv != MxvKernel::Generic) {
      run_pull<S>(plan, w, mask, accum, M, u, replace);
      return;
    }
  }
  generic_mxv(plan, builtin_generic<S>(), w, mask, accum, M, u, replace, false);
}

template <class S, class I, class V>
void vxm(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A, bool transpose_a,
         bool replace) {
  // u ⊕.⊗ A is a pull over the rows of A^T (cached on the host, uploaded once); every built-in
  // multiply is commutative, so the mxv kernels serve it as they are.
  const Graph<I, V>& M = transpose_a ? A : A.transpose();
  if constexpr (cuda_precompiled(OpKind::Vxm, S::kind)) {
    if (plan.mxv != MxvKernel::Generic) {
      run_pull<S>(plan, w, mask, accum, M, u, replace);
      return;
    }
  }
  generic_mxv(plan, builtin_generic<S>(), w, mask, accum, M, u, replace, true);
}

template <class S, class I, class V>
void spmv_dense(const Plan& plan, const Graph<I, V>& M, const typename S::value_type* u,
                typename S::value_type* w, cudaStream_t stream) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  if (M.rows() == 0) return;
  if constexpr (cuda_precompiled(OpKind::Mxv, S::kind)) {
    auto a = mxv_args_for<S>(M);
    a.u = u;
    a.out.w = w;
    launch_planned_mxv<S, false>(plan, M, a, stream);
  } else {
    throw_incomplete_mxv_plan(plan);
  }
}

}  // namespace spindle::detail::cuda

/// Instantiates the backend's mxv and vxm for one (S, I, V).
#define SPINDLE_CUDA_MXV_INSTANTIATE(S, I, V)                                                     \
  template void spindle::detail::cuda::mxv<S, I, V>(                                              \
      const ::spindle::Plan&, ::spindle::Vector<typename S::value_type>&, const ::spindle::Mask&, \
      ::spindle::Accum, const ::spindle::Graph<I, V>&,                                            \
      const ::spindle::Vector<typename S::value_type>&, bool, bool);                              \
  template void spindle::detail::cuda::vxm<S, I, V>(                                              \
      const ::spindle::Plan&, ::spindle::Vector<typename S::value_type>&, const ::spindle::Mask&, \
      ::spindle::Accum, const ::spindle::Vector<typename S::value_type>&,                         \
      const ::spindle::Graph<I, V>&, bool, bool);                                                 \
  template void spindle::detail::cuda::spmv_dense<S, I, V>(                                       \
      const ::spindle::Plan&, const ::spindle::Graph<I, V>&, const typename S::value_type*,       \
      typename S::value_type*, cudaStream_t);

/// Declares the kernel families of every semiring precompiled for mxv over T (their definitions
/// are in the generated family translation units), so that an entry file instantiates none.
#define SPINDLE_CUDA_MXV_EXTERN_(S, T, I, VV) SPINDLE_MXV_FAMILIES(extern, S, T, I, VV)
#define SPINDLE_CUDA_MXV_EXTERN_S_(S, VVS)                      \
  VVS(SPINDLE_CUDA_MXV_EXTERN_, S, S::value_type, std::int32_t) \
  VVS(SPINDLE_CUDA_MXV_EXTERN_, S, S::value_type, std::int64_t)
#define SPINDLE_CUDA_MXV_EXTERN_FAMILIES(T)                 \
  namespace spindle::detail::cuda {                         \
  SPINDLE_CUDA_MXV_SEMIRINGS(SPINDLE_CUDA_MXV_EXTERN_S_, T) \
  }
