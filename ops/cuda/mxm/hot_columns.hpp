// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file hot_columns.hpp
/// @brief Gather hints for nnz_balanced_seq's group form: the graph's most gathered columns keep
/// their B rows in L2, the others are read evict-first.
///
/// On a skewed graph whose B does not fit L2, a few columns take most of the entries (R-MAT
/// scale 22: the 48 K columns of largest in-degree hold 59% of them, 64 K hold 63%), yet their B
/// rows share L2 with the rows of cold columns, each read a few times. The graph's column ids get
/// a copy in which the `hot` columns of largest in-degree are flagged (top bit set), built once
/// on the device and cached on the graph per hot count and mode. The group form's hinted kernel
/// reads a flagged column's B row with the normal L2 policy and every other row evict-first.
/// Two modes:
/// - in place: a flagged id keeps its column id and the row is read from B itself; only where
///   one pass covers all of N (the kernel adds no slab offset to it);
/// - the copy (with the hook budget at several passes, or debug_spmm_hot_copy): a flagged id
///   holds a slot in a copy of the hot rows made at the start of each call under a persisting
///   access-policy window, which raises the device's persisting L2 set-aside for the call.
/// By rule neither runs now: once the set-aside was put back after each call (run 22), both lost
/// to no hints at all on every graph and width measured (H200; docs/design/mxm.md). The hooks keep
/// them measurable (spindle bench mxm, gcn).
/// The rule (spmm_hot_rule, and the skew check in build_hot_columns) lives in hot_columns.cu.

#include <cuda_runtime.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"  // the test hooks
#include "spindle/graph.hpp"

namespace spindle::detail::cuda {

/// Column ids must leave their top bit free for the hot flag.
template <class I>
constexpr std::int64_t kSpmmHotMaxCols = std::int64_t{1} << (sizeof(I) * 8 - 1);

/// A flagged entry (top bit set) holds a slot of the hot copy or, in place, its column id; an
/// unflagged one the column id.
template <class I>
__host__ __device__ __forceinline__ bool spmm_hot_flagged(I j) {
  using U = std::make_unsigned_t<I>;
  return (static_cast<U>(j) >> (sizeof(I) * 8 - 1)) != 0;
}
template <class I>
__host__ __device__ __forceinline__ I spmm_hot_strip(I j) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(j) & (~U{0} >> 1));
}

/// How a group-form call gathers: `rows` hot columns (0: no hints), read in place or from a copy.
struct SpmmHotRule {
  std::int64_t rows = 0;
  bool copy = false;
};

/// The rule (defined in hot_columns.cu, so that its constants change without recompiling the
/// kernels). row_bytes: bytes of a B row one pass reads; copy_row_bytes: bytes of a hot row in
/// the copy (every pass's slab); passes: column passes of the launch. By rule: no hints (run 23).
/// With the tests' hook budget they apply everywhere (never with the hook at -1): in place at one
/// pass for budget / row_bytes columns, else (several passes, or debug_spmm_hot_copy) a copy of
/// min(budget, the persisting set-aside) bytes.
SpmmHotRule spmm_hot_rule(std::int64_t cols, std::int64_t row_bytes, std::int64_t copy_row_bytes,
                          std::int64_t passes);

/// Counts launches of the hinted group kernel (debug_spmm_hinted_launches reads it).
std::atomic<std::int64_t>& spmm_hinted_launch_count() noexcept;

/// The flagged copy of a graph's column ids for one hot count and mode (device).
struct HotColumnsSlot : ExtensionSlot {
  /// nnz entries: for a hot column, its slot in the copy (or, in place, its own id) | top bit;
  /// else the column id
  DeviceBuffer col;
  DeviceBuffer order;  ///< `hot` entries: order[s] = the column whose B row is slot s
  /// Hot columns: at most the count asked for, none of in-degree 0; 0 where the skew check
  /// refused the copy (build_hot_columns).
  std::int64_t hot = 0;
  bool no_room = false;   ///< the GPU had no memory for it: gathers run without hints
  bool in_place = false;  ///< hot ids keep their column id (no copy)
};

/// Builds the flagged copy of `col_idx` (device, nnz entries over `cols` columns, cols below
/// kSpmmHotMaxCols<I>) for the `hot` columns of largest in-degree (ties by ascending id, none of
/// in-degree 0): in-degrees by atomic counts, a stable radix sort of (degree, id), then each
/// entry of a hot column becomes its slot | top bit (in_place: its column id | top bit). Where
/// those columns hold under a quarter of the entries (no skew to exploit) the slot gets no hot
/// columns, unless the tests' hook budget is set. Enqueued on `stream`; returns after the hot count
/// was read (one synchronization). When the GPU has no room for the copy and its scratch, returns a
/// slot with no_room set (logged with SPINDLE_LOG=plan) instead of throwing: the copy only changes
/// where B rows are read from.
template <class I>
std::unique_ptr<HotColumnsSlot> build_hot_columns(const I* col_idx, std::int64_t nnz,
                                                  std::int64_t cols, std::int64_t hot,
                                                  bool in_place, cudaStream_t stream);

/// Enqueues the hot copy: `passes` slabs of `width` columns, slab p holding columns
/// [p·width, p·width + width) of the B rows order[0 .. hot): hot_b[(p·hot + s)·width + q] =
/// b[order[s]·ldb + p·width + q], 0 past column n. T: float or double.
template <class T, class I>
void launch_hot_copy(const I* order, std::int64_t hot, const T* b, std::int64_t ldb, std::int64_t n,
                     std::int64_t width, std::int64_t passes, T* hot_b, cudaStream_t stream);

/// A persisting L2 access-policy window on a stream for the kernels of one call. open() raises
/// the device's persisting limit where it is lower than the window and sets the window; the
/// destructor enqueues a pass that reads the window's lines under a normal-property window
/// (returning them to normal L2 use: cudaCtxResetPersistingL2Cache is not stream-ordered),
/// restores the stream's previous window, and, when it is the last open window, waits for the
/// stream and puts the limit back where it was (a raised set-aside left in place slows every later
/// streaming kernel severalfold; see hot_columns.cu). Errors are not thrown (logged with
/// SPINDLE_LOG=plan).
class PersistingWindow {
 public:
  PersistingWindow() = default;
  ~PersistingWindow() { close(); }
  PersistingWindow(PersistingWindow&& o) noexcept;
  PersistingWindow& operator=(PersistingWindow&& o) noexcept;
  PersistingWindow(const PersistingWindow&) = delete;
  PersistingWindow& operator=(const PersistingWindow&) = delete;

  /// A failure (a device without a persisting set-aside, say) leaves the stream without the
  /// window, logged with SPINDLE_LOG=plan: it changes speed, not results.
  void open(const void* base, std::size_t bytes, cudaStream_t stream) noexcept;

 private:
  void close() noexcept;
  const void* base_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaStreamAttrValue saved_{};
};

}  // namespace spindle::detail::cuda
