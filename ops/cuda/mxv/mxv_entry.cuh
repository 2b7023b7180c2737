// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file mxv_entry.cuh
/// @brief The CUDA backend's mxv / vxm (declared in ops/core/backend.hpp): device residency of
/// the operands, the output's presence bookkeeping, and the switch from plan.mxv to one kernel
/// variant (one .cuh each). Included by the per-type instantiation files ops/cuda/mxv_*.cu.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "ops/cuda/cusparse/spmv.hpp"
#include "ops/cuda/mxv/merge_path.cuh"
#include "ops/cuda/mxv/nnz_split_segmented.cuh"
#include "ops/cuda/mxv/partition.hpp"
#include "ops/cuda/mxv/row_block.cuh"
#include "ops/cuda/mxv/row_block_warp.cuh"
#include "ops/cuda/mxv/row_per_thread.cuh"
#include "ops/cuda/mxv/sliced_coo.cuh"
#include "ops/cuda/mxv/spmv_dense.hpp"
#include "ops/cuda/mxv/subwarp_per_row.cuh"
#include "ops/cuda/mxv/tuned.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail::cuda {

/// Default launch parameters when the plan leaves them at 0.
inline constexpr int kDefaultLanes = 8;
inline constexpr std::int64_t kDefaultChunk = 1024;  // entries per warp (nnz_split)
inline constexpr int kDefaultMergeItems = 8;         // items per thread (merge_path)
inline constexpr int kMaxMergeItems = 16;            // shared memory bound (merge_path.cuh)
inline constexpr std::int64_t kDefaultRowBlockEntries = 1024;  // row_block: 256 threads
/// Graphs with fewer entries are launch-bound: row_block keeps long rows in one block
/// (partition.hpp, kRowBlockSmallGraphLongFactor). The planner's small-graph bound (kSmallNnz).
inline constexpr std::int64_t kRowBlockOneLaunchBelowNnz = std::int64_t{1} << 17;

/// row_block's form for a graph of `nnz` entries (row_block.cuh, RowBlockForm): Small below
/// kRowBlockOneLaunchBelowNnz (the general path runs it as L2Resident), L2Resident while the
/// index and value streams take at most kRowBlockL2ResidentShare of L2, Streaming above. The share
/// is set between R-MAT 18 (31.5 MB on a 60 MB L2: plain loads 30.7 us, streaming 30.3-33.6) and
/// R-MAT 19 (64 MB: plain loads 13% slower), H200.
inline constexpr double kRowBlockL2ResidentShare = 0.6;
template <class T, class I, class VV>
RowBlockForm row_block_form(std::int64_t nnz, const DeviceCaps& caps) {
  if (nnz < kRowBlockOneLaunchBelowNnz) return RowBlockForm::Small;
  const double stream_bytes = static_cast<double>(nnz) *
                              static_cast<double>(sizeof(I) + (is_pattern_v<VV> ? 0 : sizeof(T)));
  return stream_bytes <= kRowBlockL2ResidentShare * static_cast<double>(caps.l2_bytes)
             ? RowBlockForm::L2Resident
             : RowBlockForm::Streaming;
}

/// row_block over relabelled columns reads the first kHotBytes of u through L1 and the rest around
/// it (row_block.cuh); its warp form copies its own, larger hot set into shared memory
/// (row_block_warp.cuh, kRowBlockWarpSmemBudget). 128 KB:
/// in an exploration harness (H100, R-MAT scale 22, fp32) hot sets of
/// 32768 / 65536 / 16384 columns ran 0.453 / 0.472 / 0.464 ms (values) and 0.394 / 0.413 / 0.406 ms
/// (pattern).
inline constexpr std::int64_t kHotBytes = 128 * 1024;
/// No column is cold (plain reads everywhere): the graph's columns are in their own order.
inline constexpr std::int64_t kAllHot = INT64_MAX;

/// vxm multiplies mul(u(i), A(i,j)): for user semirings run the kernels with the operands
/// swapped. Every built-in multiply is commutative, so built-ins use S itself (no extra
/// instantiations).
template <class S>
struct SwappedMul : S {
  using T = typename S::value_type;
  SPINDLE_HD static constexpr T mul(T a, T b) { return S::mul(b, a); }
};
template <class S>
using PullSemiring = std::conditional_t<S::kind == SemiringKind::Custom, SwappedMul<S>, S>;

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

/// Logs (SPINDLE_LOG=plan) that `plan` could not run as planned and what runs instead.
void log_mxv_fallback(const Plan& plan, MxvKernel instead, const std::string& why);

/// Whether the warp form runs as the runs kernel (plain calls with 4-byte values and indices) or
/// as mxv_row_block_warp_kernel (row_block_warp.cuh).
template <class T, class I, bool kGeneral>
inline constexpr bool kWarpFormRuns = !kGeneral && kRowBlockWarpRuns<T, I>;

/// Bytes of shared memory per block the warp form's staging takes on this path.
template <class T, class I, bool kGeneral>
constexpr std::int64_t row_block_warp_staging() {
  if constexpr (kWarpFormRuns<T, I, kGeneral>) {
    return row_block_warp_runs_smem<T>(0);
  } else {
    return row_block_warp_smem<T, kGeneral>(0);
  }
}

/// Whether a row_block plan runs as the warp form (row_block_warp.cuh): 256 entries per task or
/// fewer, and a device whose shared memory holds the form's staging. The launch and the sizing of
/// u's hot set both ask here, so they cannot disagree.
template <class T, class I, bool kGeneral>
bool runs_row_block_warp_form(const Plan& plan, const DeviceCaps& caps) {
  const std::int64_t entries =
      plan.params.items_per_worker > 0 ? plan.params.items_per_worker : kDefaultRowBlockEntries;
  return entries <= kRowBlockWarpEntries &&
         row_block_warp_staging<T, I, kGeneral>() <= caps.smem_per_block_optin;
}

/// Launches the kernel the plan names over device graph `d` (rows of M give the outputs).
template <class S, bool kGeneral, class T, class I, class VV, class G>
void launch_mxv_kernel(const Plan& plan, MxvKernel kernel, const G& M, const MxvArgs<T, I, VV>& a,
                       std::int64_t hot, cudaStream_t stream) {
  Context& ctx = context();
  const LaunchParams& p = plan.params;
  switch (kernel) {
    case MxvKernel::RowPerThread:
      launch_row_per_thread<S, kGeneral>(a, p.block_threads, stream);
      break;
    case MxvKernel::SubwarpPerRow:
      launch_subwarp_per_row<S, kGeneral>(a, p.lanes_per_row > 0 ? p.lanes_per_row : kDefaultLanes,
                                          p.block_threads, stream);
      break;
    case MxvKernel::NnzSplitSegmented: {
      std::int64_t chunk = p.items_per_worker > 0 ? p.items_per_worker : kDefaultChunk;
      chunk = (chunk + 31) / 32 * 32;
      const NnzSplitPartition part = nnz_split_partition(M, chunk);
      void* ws = ctx.scratch(ChunkPartials<T>::bytes(part.chunks));
      launch_nnz_split<S, kGeneral>(a, chunk, part.chunks, part.chunk_row, ws, stream);
      break;
    }
    case MxvKernel::RowBlock: {
      const std::int64_t entries =
          p.items_per_worker > 0 ? p.items_per_worker : kDefaultRowBlockEntries;
      const DeviceCaps& caps = device_caps();
      if (runs_row_block_warp_form<T, I, kGeneral>(plan, caps)) {
        // The warp form (row_block_warp.cuh), one task per warp: plain calls with 4-byte types
        // take runs of whole rows up to 256 entries reduced by a segmented scan, the others
        // row_block's runs (rows over 64 entries alone) reduced by lane groups.
        constexpr bool kRuns = kWarpFormRuns<T, I, kGeneral>;
        const RowBlockPartition part =
            kRuns ? row_block_warp_run_partition(M) : row_block_warp_partition(M);
        void* ws = part.pieces > 0
                       ? ctx.scratch(static_cast<std::size_t>(part.pieces) * (sizeof(T) + 1))
                       : nullptr;
        const std::int64_t hs = hot == kAllHot ? 0 : hot;
        if constexpr (kRuns) {
          // It writes only y's values: the presence bytes are the graph's cached ones.
          MxvArgs<T, I, VV> ar = a;
          copy_row_presence(M, a.out.present, stream);
          ar.out.present = nullptr;
          launch_row_block_warp_runs<S>(ar, part.blocks, part.desc, part.n_long, part.longs,
                                        part.pieces, ws, hs, caps.sm_count,
                                        caps.smem_per_block_optin, stream);
        } else {
          launch_row_block_warp<S, kGeneral>(a, part.blocks, part.desc, part.n_long, part.longs,
                                             part.pieces, ws, hs, caps.sm_count,
                                             caps.smem_per_block_optin, stream);
        }
        break;
      }
      if (entries <= kRowBlockWarpEntries) {
        const std::int64_t warp_staging = row_block_warp_staging<T, I, kGeneral>();
        log_mxv_fallback(plan, MxvKernel::RowBlock,
                         "row_block/256 (the warp form) stages " + std::to_string(warp_staging) +
                             " bytes of shared memory per block, this device allows " +
                             std::to_string(caps.smem_per_block_optin) +
                             ": row_block/512 (the block form) runs instead");
      }
      const int bt = entries <= 512 ? 128 : 256;
      // Small (launch-bound) graphs: long rows up to 8 NB in one block, usually one launch.
      const std::int64_t long_factor = M.nnz() < kRowBlockOneLaunchBelowNnz
                                           ? kRowBlockSmallGraphLongFactor
                                           : kRowBlockLongFactor;
      const RowBlockPartition part = row_block_partition(M, bt, long_factor);
      void* ws = part.pieces > 0
                     ? ctx.scratch(static_cast<std::size_t>(part.pieces) * (sizeof(T) + 1))
                     : nullptr;
      launch_row_block<S, kGeneral>(a, bt, part.blocks, part.desc, part.n_long, part.longs,
                                    part.pieces, ws, hot, row_block_form<T, I, VV>(M.nnz(), caps),
                                    stream);
      break;
    }
    case MxvKernel::SlicedCoo: {
      // The smallest slot holding the longest row, raised to the plan's entries per slot (0:
      // auto; more than the largest slot means the largest).
      const std::int64_t longest = M.stats().max_row;
      std::int64_t slot = sliced_slot_for(longest);
      if (slot > 0 && p.items_per_worker > 0) {
        slot = std::max(slot, sliced_slot_for(std::min(p.items_per_worker, kSlicedLargeBlockSlot)));
      }
      bool fits = false;
      SlicedCoo<I, VV> L;
      if (slot > 0) L = sliced_coo_layout<T, VV>(M, slot, fits);
      if (!fits) {
        Plan rb = plan;
        rb.mxv = MxvKernel::RowBlock;
        rb.params.items_per_worker = kDefaultRowBlockEntries;
        rb.params.block_threads = static_cast<int>(kDefaultRowBlockEntries / 4);
        Plan shown = plan;  // the log names the parameters row_block really runs with
        shown.params = rb.params;
        log_mxv_fallback(
            shown, MxvKernel::RowBlock,
            slot == 0 ? "a row of " + std::to_string(longest) +
                            " entries is longer than its largest slot of " +
                            std::to_string(kSlicedLargeBlockSlot)
                      : std::to_string(M.rows()) + " rows do not fit its layout's 29-bit row ids");
        launch_mxv_kernel<S, kGeneral>(rb, MxvKernel::RowBlock, M, a, hot, stream);
        return;
      }
      launch_sliced_coo<S, kGeneral>(a, L, slot, stream);
      break;
    }
    default: {  // MergePath
      int k = p.items_per_worker > 0 ? static_cast<int>(p.items_per_worker) : kDefaultMergeItems;
      k = k > kMaxMergeItems ? kMaxMergeItems : k;
      const MergePathPartition part = merge_path_partition(M, k);
      void* ws = ctx.scratch(ChunkPartials<T>::bytes(part.tiles));
      launch_merge_path<S, kGeneral>(a, k, part.tiles, part.tile_x, part.tile_y, ws, stream);
      break;
    }
  }
  SPINDLE_CUDA_CHECK_LAUNCH(to_string(kernel));
}

/// The kernel that will really run for `plan` (declines fall back to merge_path).
inline MxvKernel runnable_kernel(const Plan& plan, bool cusparse_ok, std::int64_t nnz,
                                 std::string& why) {
  switch (plan.mxv) {
    case MxvKernel::RowPerThread:
    case MxvKernel::SubwarpPerRow:
    case MxvKernel::MergePath:
    case MxvKernel::RowBlock:
    case MxvKernel::SlicedCoo:  // a graph whose rows do not fit its slots runs row_block (logged)
      return plan.mxv;
    case MxvKernel::NnzSplitSegmented:
      if (nnz > 0) return plan.mxv;
      why = "no stored entries to split";
      return MxvKernel::MergePath;
    case MxvKernel::Cusparse:
      if (cusparse_ok) return plan.mxv;
      why = "cuSPARSE runs plus_times without mask, accumulator or absent inputs only";
      return MxvKernel::MergePath;
    case MxvKernel::SellP:
      why = "sell_p is not implemented in this build";
      return MxvKernel::MergePath;
    case MxvKernel::PushScatter:
      // vxm's push runs before any pull (ops/cuda/mxv/push_scatter.cuh); a plan that reaches the
      // pull kernels with it (an mxv, or a transposed vxm) has nothing to push over.
      why = "push_scatter runs vxm over the rows of A only (not mxv or a transposed vxm)";
      return MxvKernel::MergePath;
    default:
      why = std::string(to_string(plan.mxv)) + " is not a CUDA kernel";
      return MxvKernel::MergePath;
  }
}

/// Runs `chosen` over M with the operands in `a`: the kernel that can really run (declines
/// logged), u (and on the general path its presence) relabelled first when the plan asks for it,
/// or cuSPARSE.
template <class S, bool kGeneral, class T, class I, class V, class VV>
void launch_planned_mxv(const Plan& chosen, const Graph<I, V>& M, MxvArgs<T, I, VV> a,
                        cudaStream_t stream) {
  Context& ctx = context();
  const bool cusparse_ok = S::kind == SemiringKind::PlusTimes && !kGeneral;
  std::string why;
  const MxvKernel kernel = runnable_kernel(chosen, cusparse_ok, M.stats().nnz, why);
  if (kernel != chosen.mxv) log_mxv_fallback(chosen, kernel, why);
  std::int64_t hot = kAllHot;
  // sliced_coo reads its own copy of the entries: the relabelling has nothing to act on.
  if (kernel != MxvKernel::Cusparse && kernel != MxvKernel::SlicedCoo &&
      chosen.params.tile == kRelabelColumns) {
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
    const bool warp_form = kernel == MxvKernel::RowBlock &&
                           runs_row_block_warp_form<T, I, kGeneral>(chosen, device_caps());
    hot = std::min(warp_form ? row_block_warp_hot_entries<T>()
                             : kHotBytes / static_cast<std::int64_t>(sizeof(T)),
                   rl.used);
  }
  if (kernel == MxvKernel::Cusparse) {
    if constexpr (S::kind == SemiringKind::PlusTimes) {
      const DeviceCsr<I, T> dv = device_csr<T>(M);
      // For cuSPARSE, params.tile picks the algorithm: 2 = CSR_ALG2, else ALG_DEFAULT.
      CusparseSpmv<T, I> spmv(
          dv, a.u, a.out.w, chosen.params.tile == 2 ? CusparseAlg::CsrAlg2 : CusparseAlg::Default);
      spmv.run();
      copy_row_presence(M, a.out.present, stream);
    }
  } else {
    launch_mxv_kernel<S, kGeneral>(chosen, kernel, M, a, hot, stream);
  }
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

/// The winner of tuning mode for mxv over M with values T, when `plan` is the planner's rule
/// pick (neither forced nor tuned already). Both entries (run_pull, spmv_dense) ask here.
template <class S, class I, class V>
std::optional<Plan> tuned_mxv_instead(const Plan& plan, const Graph<I, V>& M) {
  if (plan.forced || plan.tuned) return std::nullopt;
  return tuned_mxv_plan(M, S::kind, value_kind_of<typename S::value_type>());
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

  // A winner of tuning mode (spindle/cuda/tune.hpp) replaces the rule-based pick.
  Plan chosen = plan;
  if (!general) {
    if (auto tuned = tuned_mxv_instead<S>(plan, M)) {
      chosen = *tuned;
      chosen.op = plan.op;
      log_plan(chosen);
    }
  }
  if (general) {
    launch_planned_mxv<S, true>(chosen, M, a, ctx.stream);
  } else {
    launch_planned_mxv<S, false>(chosen, M, a, ctx.stream);
  }
  mark_written(w, full);
}

template <class S, class I, class V>
void mxv(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Graph<I, V>& A, const Vector<typename S::value_type>& u, bool transpose_a,
         bool replace) {
  run_pull<S>(plan, w, mask, accum, transpose_a ? A.transpose() : A, u, replace);
}

template <class S, class I, class V>
void vxm(const Plan& plan, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
         const Vector<typename S::value_type>& u, const Graph<I, V>& A, bool transpose_a,
         bool replace) {
  // u ⊕.⊗ A is a pull over the rows of A^T (cached on the host, uploaded once).
  run_pull<PullSemiring<S>>(plan, w, mask, accum, transpose_a ? A : A.transpose(), u, replace);
}

template <class S, class I, class V>
void spmv_dense(const Plan& plan, const Graph<I, V>& M, const typename S::value_type* u,
                typename S::value_type* w, cudaStream_t stream) {
  using T = typename S::value_type;
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  if (M.rows() == 0) return;
  Plan chosen = plan;
  if (auto tuned = tuned_mxv_instead<S>(plan, M)) {
    // The mxm plan stays (op, spmv); its mxv kernel is the tuned one, and the log says so.
    chosen.mxv = tuned->mxv;
    chosen.params = tuned->params;
    chosen.tuned = true;
    chosen.reason = "N = 1: an SpMV with the mxv kernel tuned for this graph: " + tuned->reason;
    log_plan(chosen);
  } else if (chosen.mxv == MxvKernel::Auto) {
    // forced or tuned spmv: the mxv rules pick the kernel
    const Plan mv = plan_mxv_cuda(
        M.stats(),
        plain_mxv_info(S::kind, value_kind_of<T>(), value_kind_of<V>(), index_kind_of<I>()),
        device_caps(), Descriptor{});
    chosen.mxv = mv.mxv;
    chosen.params = mv.params;
  }
  chosen.op = OpKind::Mxv;
  auto a = mxv_args_for<S>(M);
  a.u = u;
  a.out.w = w;
  launch_planned_mxv<S, false>(chosen, M, a, stream);
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
