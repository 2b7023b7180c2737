// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file spmm_run.cuh
/// @brief From a Plan to SpMM launches: resolves the launch parameters, keeps the per-graph
/// derived data the kernels need (nnz partitions, the ASpT reordering) cached on the graph
/// through Graph::extension, and owns the kernels' temporary storage. Shared by the backend
/// entry (mxm_entry.cuh) and the benchmark harness, which calls it on device pointers directly.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/planner.hpp"
#include "ops/core/spmm_limits.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/mxm/aspt_prepare.hpp"
#include "ops/cuda/mxm/aspt_tiled.cuh"
#include "ops/cuda/mxm/coo_rows.cuh"
#include "ops/cuda/mxm/cusparse_spmm.hpp"
#include "ops/cuda/mxm/dense_util.hpp"
#include "ops/cuda/mxm/nnz_balanced_seq.cuh"
#include "ops/cuda/mxm/parallel_reduce_vec.cuh"
#include "ops/cuda/mxm/row_block.cuh"
#include "ops/cuda/mxm/row_cache_seq.cuh"
#include "ops/cuda/mxm/spmm_args.cuh"
#include "ops/cuda/mxm/tuning.hpp"
#include "ops/cuda/mxv/spmv_dense.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// Graphs below this many entries also try row_block at wide N (tuning, benchmark).
constexpr std::int64_t kSpmmRowBlockAnyWidthBelowNnz = std::int64_t{1} << 20;
/// The two partial buffers of nnz_balanced_seq stay under this (the chunk grows instead).
constexpr std::int64_t kBalancedWorkspaceBudget = 128ll << 20;

/// The partition of nnz_balanced_seq for chunk size W, computed once per (graph, W).
template <class I>
struct ChunkRowsSlot : ExtensionSlot {
  DeviceBuffer rows;
};

template <class I, class V>
const I* cached_chunk_rows(const Graph<I, V>& G, const I* d_row_ptr, std::int64_t rows,
                           std::int64_t chunk, std::int64_t nchunks, const std::string& tag,
                           cudaStream_t stream) {
  const std::string key = "cuda.mxm.chunks." + tag + "." + std::to_string(chunk);
  const auto& slot = G.template extension<ChunkRowsSlot<I>>(key, [&] {
    auto s = std::make_unique<ChunkRowsSlot<I>>();
    s->rows = DeviceBuffer((static_cast<std::size_t>(nchunks) + 1) * sizeof(I),
                           "nnz_balanced_seq partition");
    launch_spmm_chunk_rows<I>(d_row_ptr, rows, chunk, nchunks, s->rows.template as<I>(), stream);
    SPINDLE_CUDA_CHECK_LAUNCH("spmm_chunk_rows");
    return s;
  });
  return slot.rows.template as<const I>();
}

/// The device copy of the ASpT reordering (aspt_prepare.hpp) for one panel height.
template <class I, class VV>
struct AsptSlot : ExtensionSlot {
  std::vector<DeviceBuffer> buffers;
  AsptArgs<I, VV> view;
  std::int64_t nlong = 0;  ///< rows in the long-row CSR
  std::int64_t long_nnz = 0;
  const I* long_ptr = nullptr;
  const I* long_col = nullptr;
  const VV* long_val = nullptr;
  const I* long_rows = nullptr;
  std::int64_t heavy_entries = 0;
  double build_ms = 0;  ///< host build + upload time (reported by the benchmark)
};

template <class X>
const X* upload_vector(std::vector<DeviceBuffer>& keep, const std::vector<X>& v,
                       cudaStream_t stream) {
  keep.push_back(upload_async(v, "aspt reordering upload", stream));
  return keep.back().template as<const X>();
}

/// The reordering of G for panels of panel_rows rows, built and uploaded on first use.
/// T: the semiring's value type; VV = T (values as T) or Pattern.
template <class T, class VV, class I, class V>
const AsptSlot<I, VV>& cached_aspt(const Graph<I, V>& G, std::int64_t panel_rows,
                                   std::int64_t long_row, cudaStream_t stream) {
  const std::string key = "cuda.mxm.aspt." + std::to_string(panel_rows) + "." +
                          std::to_string(long_row) + "." +
                          (is_pattern_v<VV> ? "pattern" : to_string(value_kind_of<T>()));
  return G.template extension<AsptSlot<I, VV>>(key, [&] {
    const auto t0 = std::chrono::steady_clock::now();
    auto s = std::make_unique<AsptSlot<I, VV>>();
    std::vector<T> converted;
    const T* vals = nullptr;
    if constexpr (!is_pattern_v<VV>) {
      if constexpr (std::is_same_v<V, T>) {
        vals = G.values().data();
      } else {
        converted = workspace<T>(static_cast<std::size_t>(G.nnz()), "aspt values");
        for (std::int64_t k = 0; k < static_cast<std::int64_t>(G.nnz()); ++k) {
          converted[static_cast<std::size_t>(k)] = G.template value_at<T>(static_cast<I>(k));
        }
        vals = converted.data();
      }
    }
    const AsptHost<I, T> h = build_aspt<I, T>(G.rows(), G.row_ptr().data(), G.col_idx().data(),
                                              vals, panel_rows, long_row);
    auto& keep = s->buffers;
    keep.reserve(16);
    AsptArgs<I, VV>& p = s->view;
    p.panel_rows = panel_rows;
    p.panels = h.panels;
    p.panel_hptr = upload_vector(keep, h.panel_hptr, stream);
    p.heavy_cols = upload_vector(keep, h.heavy_cols, stream);
    p.h_ptr = upload_vector(keep, h.h_ptr, stream);
    p.h_slot = upload_vector(keep, h.h_slot, stream);
    p.l_ptr = upload_vector(keep, h.l_ptr, stream);
    p.l_col = upload_vector(keep, h.l_col, stream);
    s->long_ptr = upload_vector(keep, h.long_ptr, stream);
    s->long_col = upload_vector(keep, h.long_col, stream);
    s->long_rows = upload_vector(keep, h.long_rows, stream);
    if constexpr (!is_pattern_v<VV>) {
      p.h_val = upload_vector(keep, h.h_val, stream);
      p.l_val = upload_vector(keep, h.l_val, stream);
      s->long_val = upload_vector(keep, h.long_val, stream);
    }
    s->nlong = static_cast<std::int64_t>(h.long_rows.size());
    s->long_nnz = static_cast<std::int64_t>(h.long_ptr.back());
    s->heavy_entries = static_cast<std::int64_t>(h.h_ptr.back());
    // The host arrays die with this scope: the copies must have read them.
    SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    s->build_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return s;
  });
}

/// The launch parameters of a complete SpMM plan (plan_mxm_cuda / finalize_mxm_cuda), read
/// into the runner's terms. Nothing is decided here: a plan the planner did not complete is
/// refused.
struct SpmmLaunch {
  MxmKernel kernel = MxmKernel::RowCacheSeq;
  int lanes = 32;             ///< parallel_reduce_vec lanes per row
  std::int64_t tile = 0;      ///< columns per pass (0: all)
  std::int64_t chunk = 0;     ///< nnz_balanced_seq nonzeros per chunk (0: the group form's window)
  std::int64_t long_row = 0;  ///< aspt_tiled long-row limit
  std::int64_t split = 0;     ///< row_cache_seq: longest piece of the split form (0: whole rows)
  int seq_lanes = 0;          ///< row_cache_seq: lanes per row (0: as many as the columns need)
  BalancedForm form = BalancedForm::Warp;  ///< nnz_balanced_seq's form (plan.params.form)
};

[[noreturn]] inline void throw_incomplete_spmm_plan(const Plan& plan) {
  throw InvalidArgument("CUDA mxm: the plan '" + plan.describe() +
                        "' is not one the planner makes (plans come complete from "
                        "plan_mxm_cuda / finalize_mxm_cuda)");
}

inline SpmmLaunch resolve_spmm_launch(const Plan& plan) {
  SpmmLaunch l;
  l.kernel = plan.mxm;
  l.lanes = plan.params.lanes_per_row;
  l.tile = plan.params.tile;
  l.chunk = l.kernel == MxmKernel::NnzBalancedSeq ? plan.params.items_per_worker : 0;
  l.split = l.kernel == MxmKernel::RowCacheSeq
                ? std::max<std::int64_t>(0, plan.params.items_per_worker)
                : 0;
  l.seq_lanes = l.kernel == MxmKernel::RowCacheSeq ? plan.params.lanes_per_row : 0;
  if (l.kernel == MxmKernel::NnzBalancedSeq) {
    if (plan.params.form == KernelForm::BalancedGroup) {
      l.form = BalancedForm::Group;
    } else if (plan.params.form == KernelForm::BalancedWarp) {
      l.form = BalancedForm::Warp;
    } else {
      throw_incomplete_spmm_plan(plan);
    }
  }
  l.long_row = l.kernel == MxmKernel::AsptTiled ? plan.params.items_per_worker : 0;
  if ((l.kernel == MxmKernel::ParallelReduceVec && l.lanes <= 0) ||
      (l.kernel == MxmKernel::AsptTiled && l.long_row <= 0)) {
    throw_incomplete_spmm_plan(plan);
  }
  return l;
}

/// What a launch of nnz_balanced_seq needs beside the form and tile: the arguments, the
/// partition and the partial buffers (freed stream-ordered with this object).
template <class I, class VV, class T>
struct BalancedSetup {
  SpmmArgs<I, VV, T> a;
  BalancedArgs<I, T> w;
  DeviceBuffer ws;
};

/// Prepares the balanced kernel on the CSR in `a` (whose structure is G's, or the ASpT long-row
/// CSR with row_map): chunk size, the partition (cached on G under `tag`) and partial buffers.
template <class I, class VV, class T, class V>
BalancedSetup<I, VV, T> prepare_balanced(const SpmmArgs<I, VV, T>& a, std::int64_t nnz,
                                         const I* row_map, const Graph<I, V>& G,
                                         const std::string& tag, std::int64_t chunk_req,
                                         std::int64_t tile, BalancedForm form,
                                         cudaStream_t stream) {
  BalancedSetup<I, VV, T> setup;
  BalancedArgs<I, T>& w = setup.w;
  w.nnz = nnz;
  const int lanes = seq_group_lanes(a.n, balanced_seq_vec(a), tile);
  const bool group_form = balanced_uses_group_form(nnz, lanes, form) &&
                          spmm_group_form_fits(a.n, static_cast<std::int64_t>(sizeof(T)));
  // The group form's fragment width and lanes per row (its window size uses both).
  const int gvec = balanced_group_vec(a);
  const int glanes = seq_group_lanes(a.n, gvec, tile);
  if (chunk_req <= 0 && group_form) {
    // One shared-memory window per chunk: 128 / 256 / 512 entries at 8 / 16 / 32 lanes (float,
    // int32). Measured against 256 at every width (H100, session 13):
    // R-MAT 22 N = 16 2.13 against 2.26 ms, R-MAT 20 N = 16 0.543 against 0.588, R-MAT 20
    // N = 64 0.805 against 0.834; N = 32 kept 256 (2.56 against 2.69 at 128).
    chunk_req = balanced_window_entries<I, VV, T>() / (kSpmmBlock / glanes);
  } else if (chunk_req <= 0) {
    // The warp form walks a chunk P = 32/G entries per step. 64 steps per chunk amortize its
    // setup (head row, partials, fix-up work); small graphs get smaller chunks so that there
    // are still about 8 warps per SM (a 26K-entry graph in 2048-entry chunks would run on 13
    // warps), but never less than one step.
    const std::int64_t p = 32 / lanes;
    const std::int64_t sms = device_caps().sm_count > 0 ? device_caps().sm_count : 132;
    const std::int64_t spread = (nnz + 8 * sms - 1) / (8 * sms);
    chunk_req = std::min<std::int64_t>(64 * p, std::max<std::int64_t>(p, spread));
    chunk_req = (chunk_req + p - 1) / p * p;
  }
  w.chunk = balanced_chunk(nnz, a.n, sizeof(T), chunk_req, kBalancedWorkspaceBudget);
  w.nchunks = (nnz + w.chunk - 1) / w.chunk;
  w.row_map = row_map;
  w.chunk_row = cached_chunk_rows(G, a.row_ptr, a.rows, w.chunk, w.nchunks, tag, stream);
  if (!group_form) w.row_idx = cached_coo_rows(G, a.row_ptr, a.rows, nnz, tag, stream);
  setup.ws = DeviceBuffer(
      2 * static_cast<std::size_t>(w.nchunks) * static_cast<std::size_t>(a.n) * sizeof(T),
      "nnz_balanced_seq partials");
  w.ws_head = setup.ws.template as<T>();
  w.ws_tail = w.ws_head + w.nchunks * a.n;
  setup.a = a;
  return setup;
}

/// Runs the balanced kernel (prepare_balanced's arguments).
template <class S, class I, class VV, class T, class V>
void run_balanced(const SpmmArgs<I, VV, T>& a, std::int64_t nnz, const I* row_map,
                  const Graph<I, V>& G, const std::string& tag, std::int64_t chunk_req,
                  std::int64_t tile, BalancedForm form, cudaStream_t stream) {
  const BalancedSetup<I, VV, T> setup =
      prepare_balanced(a, nnz, row_map, G, tag, chunk_req, tile, form, stream);
  launch_spmm_nnz_balanced_seq<S>(setup.a, setup.w, tile, form, stream);
  SPINDLE_CUDA_CHECK_LAUNCH("spmm_nnz_balanced_seq");
}  // the partials are freed stream-ordered, after the kernels

template <class S, class I, class VV, class T, class V, int VEC>
void run_aspt_vec(const SpmmArgs<I, VV, T>& a, const Graph<I, V>& G, const SpmmLaunch& l,
                  cudaStream_t stream) {
  const int G_lanes = seq_group_lanes(a.n, VEC, l.tile);
  const std::int64_t panel_rows = aspt_panel_rows(G_lanes);
  const AsptSlot<I, VV>& slot = cached_aspt<T, VV>(G, panel_rows, l.long_row, stream);
  AsptArgs<I, VV> p = slot.view;
  p.tile_slots = aspt_tile_slots<T>(static_cast<std::int64_t>(G_lanes) * VEC);
  // The long rows' setup (chunk rows, partials) is allocated before the panels write C: a failed
  // allocation then leaves C as it was.
  std::optional<BalancedSetup<I, VV, T>> longs;
  if (slot.nlong > 0) {
    SpmmArgs<I, VV, T> la = a;
    la.rows = slot.nlong;
    la.row_ptr = slot.long_ptr;
    la.col_idx = slot.long_col;
    la.vals = slot.long_val;
    longs.emplace(
        prepare_balanced(la, slot.long_nnz, slot.long_rows, G,
                         "aspt" + std::to_string(panel_rows) + "." + std::to_string(l.long_row), 0,
                         l.tile, BalancedForm::BySize, stream));
  }
  launch_spmm_aspt_panels<S, I, VV, T, VEC>(a, p, l.long_row, G_lanes, stream);
  SPINDLE_CUDA_CHECK_LAUNCH("spmm_aspt_tiled");
  if (longs) {
    launch_spmm_nnz_balanced_seq<S>(longs->a, longs->w, l.tile, BalancedForm::BySize, stream);
    SPINDLE_CUDA_CHECK_LAUNCH("spmm_nnz_balanced_seq");
  }
}  // the partials are freed stream-ordered, after the kernels

/// row_cache_seq's split form: the pieces of the rows longer than `max_piece` entries
/// (row_pieces.hpp), built on the host once per (graph, max_piece), uploaded and cached on G.
struct RowPieceSlot : ExtensionSlot {
  DeviceBuffer pieces;
  DeviceBuffer longs;
  std::int64_t npieces = 0;
  std::int64_t nlong = 0;
  std::int64_t slots = 0;
};

template <class I, class V>
const RowPieceSlot& cached_row_pieces(const Graph<I, V>& G, std::int64_t max_piece,
                                      cudaStream_t stream) {
  return G.template extension<RowPieceSlot>(
      "cuda.mxm.row_pieces." + std::to_string(max_piece), [&] {
        const RowPieces rp = build_row_pieces(G.row_ptr().data(), G.rows(), max_piece);
        auto s = std::make_unique<RowPieceSlot>();
        s->npieces = static_cast<std::int64_t>(rp.pieces.size());
        s->nlong = static_cast<std::int64_t>(rp.longs.size());
        s->slots = rp.slots;
        s->pieces = upload_async(rp.pieces, "row_cache_seq pieces", stream);
        s->longs = upload_async(rp.longs, "row_cache_seq pieces", stream);
        SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors die here
        return s;
      });
}

/// Runs row_cache_seq's split form with pieces of at most `max_piece` entries, longer pieces when
/// the partials of N columns would pass kBalancedWorkspaceBudget.
template <class S, class I, class VV, class T, class V>
void run_row_cache_split(const SpmmArgs<I, VV, T>& a, const Graph<I, V>& G, std::int64_t max_piece,
                         std::int64_t tile, int lanes, cudaStream_t stream) {
  std::int64_t piece = max_piece;
  const RowPieceSlot* slot = &cached_row_pieces(G, piece, stream);
  const auto bytes = [&](const RowPieceSlot* s) {
    return static_cast<double>(s->slots) * static_cast<double>(a.n) * sizeof(T);
  };
  while (bytes(slot) > static_cast<double>(kBalancedWorkspaceBudget)) {
    piece *= 2;  // ends: at piece >= the longest row there are no pieces
    slot = &cached_row_pieces(G, piece, stream);
  }
  DeviceBuffer partial(static_cast<std::size_t>(bytes(slot)), "row_cache_seq split partials");
  RowSplitArgs<T> w;
  w.pieces = slot->pieces.template as<const RowPiece>();
  w.npieces = slot->npieces;
  w.max_piece = piece;
  w.longs = slot->longs.template as<const RowBlockLong>();
  w.nlong = slot->nlong;
  w.partial = partial.template as<T>();
  launch_spmm_row_cache_seq<S>(a, tile, lanes, stream, w);
}  // partial is freed stream-ordered, after the kernels

/// Enqueues the SpMM `plan` chose on `a` (the CSR of G: values as T or pattern).
/// Cusparse runs only for plus_times (the planner refuses it otherwise).
/// @throws Unsupported, OutOfMemory, DeviceError.
template <class S, class I, class VV, class V>
void run_spmm(const Plan& plan, const SpmmArgs<I, VV, typename S::value_type>& a,
              const Graph<I, V>& G, cudaStream_t stream) {
  using T = typename S::value_type;
  const SpmmLaunch l = resolve_spmm_launch(plan);
  constexpr int kWide = static_cast<int>(16 / sizeof(T));
  if (plan.mxm != MxmKernel::Spmv) record_launch(plan, OpKind::Mxm, plan.mxm);
  switch (l.kernel) {
    case MxmKernel::ParallelReduceVec:
      launch_spmm_parallel_reduce_vec<S>(a, l.lanes, stream);
      SPINDLE_CUDA_CHECK_LAUNCH("spmm_parallel_reduce_vec");
      return;
    case MxmKernel::RowCacheSeq:
      if (l.split > 0) {
        run_row_cache_split<S>(a, G, l.split, l.tile, l.seq_lanes, stream);
      } else {
        launch_spmm_row_cache_seq<S>(a, l.tile, l.seq_lanes, stream);
      }
      SPINDLE_CUDA_CHECK_LAUNCH("spmm_row_cache_seq");
      return;
    case MxmKernel::NnzBalancedSeq:
      run_balanced<S>(a, static_cast<std::int64_t>(G.nnz()), static_cast<const I*>(nullptr), G,
                      "csr", l.chunk, l.tile, l.form, stream);
      return;
    case MxmKernel::Spmv:
      // N = 1 without an epilogue is an mxv (plan.mxv / params: the mxv rules' pick).
      if (a.n != 1 || a.ldb != 1 || a.ldc != 1 || a.epi.bias != nullptr ||
          a.epi.act != UnaryOp::Identity || a.epi.accum.enabled) {
        throw_incomplete_spmm_plan(plan);
      }
      spmv_dense<S>(plan, G, a.b, a.c, stream);
      return;
    case MxmKernel::RowBlock: {
      // Small graphs keep rows up to 8 blocks' worth in one block, so one launch (mxv's rule,
      // mxv_entry.cuh: launch-bound there, a second launch costs more than the long row).
      // Rows longer than params.items_per_worker entries get a block of their own (0: mxv's 256;
      // the planner sets kSpmmSmallGraphLongRow on small graphs).
      const bool small = static_cast<std::int64_t>(G.nnz()) < kSpmmSmallGraphNnz;
      const std::int64_t shared = std::max<std::int64_t>(plan.params.items_per_worker, 0);
      const RowBlockPartition part = row_block_partition(
          G, 256, small ? kRowBlockSmallGraphLongFactor : kRowBlockLongFactor, shared);
      DeviceBuffer partial(static_cast<std::size_t>(part.pieces * a.n) * sizeof(T),
                           "row_block partials");
      launch_spmm_row_block<S>(a, part, partial.template as<T>(), stream);
      SPINDLE_CUDA_CHECK_LAUNCH("spmm_row_block");
      return;
    }  // partial is freed stream-ordered, after the kernels
    case MxmKernel::AsptTiled:
      if (seq_vec_for(a) == kWide) {
        run_aspt_vec<S, I, VV, T, V, kWide>(a, G, l, stream);
      } else {
        run_aspt_vec<S, I, VV, T, V, 1>(a, G, l, stream);
      }
      return;
    case MxmKernel::Cusparse:
      if constexpr (S::kind == SemiringKind::PlusTimes) {
        const DeviceCsr<I, T> d = device_csr<T>(G);
        const bool direct = a.epi.bias == nullptr && a.epi.act == UnaryOp::Identity &&
                            (!a.epi.accum.enabled || a.epi.accum.op == BinaryOp::Plus);
        if (direct) {
          CusparseSpmm<I, T> op(d, a.b, a.ldb, a.c, a.ldc, a.n, a.epi.accum.enabled ? T(1) : T(0),
                                CusparseSpmmAlg::Default);
          if (!op.supported()) throw Unsupported("cuSPARSE SpMM refused these shapes");
          op.run();
        } else {  // cuSPARSE has no epilogue: product into a temporary, then the epilogue pass
          DeviceBuffer t(static_cast<std::size_t>(a.rows * a.n) * sizeof(T), "mxm temporary");
          CusparseSpmm<I, T> op(d, a.b, a.ldb, t.template as<T>(), a.n, a.n, T(0),
                                CusparseSpmmAlg::Default);
          if (!op.supported()) throw Unsupported("cuSPARSE SpMM refused these shapes");
          op.run();
          launch_epilogue_pass<T>(t.template as<T>(), a.rows, a.n, a.c, a.ldc, a.epi, stream);
          SPINDLE_CUDA_CHECK_LAUNCH("epilogue_pass");
        }
        return;
      } else {
        throw Unsupported("mxm: cuSPARSE computes plus_times only");
      }
    case MxmKernel::Auto:
    case MxmKernel::CpuRowBalanced:
      break;
  }
  throw InvalidArgument(std::string("mxm: kernel ") + to_string(l.kernel) +
                        " cannot run on the CUDA backend");
}

// ---- tuning ----------------------------------------------------------------------------------

/// The candidates the tuner times for width N: every kernel that can run (ASpT for N >= 16,
/// where staging B rows pays), the row kernels in two granularities. Column tiles are left out:
/// they measured 1.5-2x slower on R-MAT and within 2% on uniform graphs (planner_cuda_mxm.cpp).
inline std::vector<Plan> spmm_tuning_candidates(const Plan& base, std::int64_t n,
                                                std::int64_t nnz) {
  std::vector<Plan> c;
  auto add = [&](MxmKernel k, int lanes, int form, std::int64_t items = 0, int tile = 0) {
    Plan p = base;
    p.mxm = k;
    p.mxv = MxvKernel::Auto;  // spmv: the mxv rules choose (base may carry the planner's mxv pick
                              // without the parameters it goes with)
    p.params = LaunchParams{};
    p.params.block_threads = 256;
    p.params.lanes_per_row = lanes;
    p.params.form = form == 1   ? KernelForm::BalancedGroup
                    : form == 2 ? KernelForm::BalancedWarp
                                : KernelForm::Default;
    p.params.items_per_worker = items;
    p.params.tile = tile;
    p.forced = false;
    c.push_back(p);
  };
  if (n <= 16) {
    add(MxmKernel::ParallelReduceVec, 0, 0);
    add(MxmKernel::ParallelReduceVec, 32, 0);
  }
  // row_block: narrow N, and any N on small graphs, where one launch of many short blocks
  // can beat the row kernels' longest row.
  // (Rows over 64 entries in blocks of their own on larger graphs, the small-graph rule, is not a
  // candidate: it lost or tied on every graph measured, e.g. R-MAT 22 N = 2 / 8 / 16 0.793 /
  // 1.669 / 3.429 ms against 0.681 / 1.327 / 2.766 on an H100; `spindle bench mxm` keeps the
  // column.)
  if (n <= 32 || nnz < kSpmmRowBlockAnyWidthBelowNnz) add(MxmKernel::RowBlock, 0, 0);
  if (n == 1) add(MxmKernel::Spmv, 0, 0);  // the mxv rules' kernel
  add(MxmKernel::RowCacheSeq, 0, 0);
  // Where the planner may take them (small graphs from N = 16): spmm_limits.hpp's list.
  for (const SpmmSeqForm& f : spmm_small_graph_seq_forms(n, nnz)) {
    add(MxmKernel::RowCacheSeq, f.lanes, 0, f.split, f.tile);
  }
  add(MxmKernel::NnzBalancedSeq, 0, 1);  // group per chunk
  add(MxmKernel::NnzBalancedSeq, 0, 2);  // warp per chunk
  if (n >= 16) add(MxmKernel::AsptTiled, 0, 0);
  return c;
}

/// Times every candidate once on the operands in `a` (a.c is overwritten: pass a scratch output
/// and no accumulator) and returns them with their median times, the fastest first being
/// marked tuned with a reason that lists every time. Nothing is cached here.
template <class S, class I, class VV, class V>
std::vector<std::pair<Plan, double>> time_spmm_candidates(
    const Plan& planned, const MxmInfo& info, const SpmmArgs<I, VV, typename S::value_type>& a,
    const Graph<I, V>& G, cudaStream_t stream, int reps) {
  std::vector<std::pair<Plan, double>> out;
  for (Plan p : spmm_tuning_candidates(planned, a.n, static_cast<std::int64_t>(G.nnz()))) {
    // Each candidate runs as the planner completes it; one that cannot run is not timed.
    if (!finalize_mxm_cuda(p, G.stats(), info, device_caps()).empty()) continue;
    out.emplace_back(p, median_ms([&] { run_spmm<S>(p, a, G, stream); }, reps));
  }
  return out;
}

inline std::string spmm_label(const Plan& p) {
  std::string s = to_string(p.mxm);
  if (p.mxm == MxmKernel::Spmv) {  // params are the mxv kernel's (tile 1: relabelled columns)
    if (p.mxv != MxvKernel::Auto) s += std::string("/") + to_string(p.mxv);
    if (p.params.tile == 1) s += "+relabel";
    return s;
  }
  if (p.params.tile > 0) s += "/tile " + std::to_string(p.params.tile);
  if (p.mxm == MxmKernel::RowBlock && p.params.items_per_worker > 0) {
    s += "/rows<=" + std::to_string(p.params.items_per_worker);
  }
  if (p.mxm == MxmKernel::RowCacheSeq && p.params.items_per_worker > 0) {
    s += "/split<=" + std::to_string(p.params.items_per_worker);
  }
  if ((p.mxm == MxmKernel::ParallelReduceVec || p.mxm == MxmKernel::RowCacheSeq) &&
      p.params.lanes_per_row > 0) {
    s += "/" + std::to_string(p.params.lanes_per_row) + " lanes";
  }
  if (p.mxm == MxmKernel::NnzBalancedSeq && p.params.form == KernelForm::BalancedGroup) {
    s += "/group form";
  }
  if (p.mxm == MxmKernel::NnzBalancedSeq && p.params.form == KernelForm::BalancedWarp) {
    s += "/warp form";
  }
  return s;
}

/// Times the candidates for `a` and returns the winner (tuned = true).
template <class S, class I, class VV, class V>
Plan tune_spmm(const Plan& planned, const MxmInfo& info,
               const SpmmArgs<I, VV, typename S::value_type>& a, const Graph<I, V>& G,
               cudaStream_t stream, int reps = 3) {
  return pick_tuned(time_spmm_candidates<S>(planned, info, a, G, stream, reps),
                    "on this graph for N = " + std::to_string(a.n), &spmm_label);
}

}  // namespace spindle::detail::cuda
