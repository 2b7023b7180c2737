// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file hot_columns.hpp
/// @brief L2 eviction hints for the gathers of B in nnz_balanced_seq's group form.
///
/// On a skewed graph whose B does not fit L2, a few columns take most of the entries (R-MAT
/// scale 22: the 64K columns of largest in-degree hold 63% of them, 256K hold 85%), and their B
/// rows are worth keeping in L2, while a row of a column of small in-degree is read a few times
/// and then only evicts hot rows. The group form therefore loads the B rows of cold columns with
/// an evict-first L2 policy and the rest plainly. Which columns are hot depends on how many B
/// rows fit a budget of kSpmmHotBytes, so on the bytes of B a pass reads per row: the graph's
/// column ids get a copy whose top two bits hold a hotness class (3: among the budget's worth of
/// 512-byte rows, 2: of 256-byte rows, 1: of 128-byte rows, 0: cold), built once on the device
/// and cached on the graph; a launch needs class spmm_hot_need(row bytes) for a plain load.
///
/// Measured (H100, R-MAT 22, fp32, apps/bench/experiments/spmm_params.cu variant xz, NOTES.md
/// run 13): N = 128 7.55 -> 6.88 ms, N = 64 3.40 -> 3.27, N = 32 1.89 -> 1.85; R-MAT 20 N = 128
/// 1.46 -> 1.38. Marking the hot rows evict-last as well gained nothing more (6.86 at N = 128,
/// slower at N = 32 and 64) and would outlive the kernel, so hot rows load plainly.

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>

#include "engine/src/cuda/device_buffer.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"  // the test hooks
#include "spindle/graph.hpp"

namespace spindle::detail::cuda {

/// Bytes of B rows the hot columns of a class may take (about 2/3 of an H100's 50 MB L2).
inline constexpr std::int64_t kSpmmHotBytes = std::int64_t{32} << 20;

/// Narrowest pass (bytes of a B row one pass reads) that gets the hints without the tests' hook.
/// Measured (H100, NOTES.md run 13, R-MAT 22, hints by rule against every column hot): N = 64
/// 3.40 against 3.57 ms, N = 128 6.99 against 7.64; at N = 32 (128-byte passes) 2.02 against
/// 2.07, a tie within the cost of the hinted kernel's extra code, so narrower passes keep the
/// hint-free kernel.
inline constexpr std::int64_t kSpmmHintMinRowBytes = 256;

/// The class a gather of B rows of `row_bytes` bytes (one pass) needs to load plainly.
inline int spmm_hot_need(std::int64_t row_bytes) {
  return row_bytes >= 512 ? 3 : (row_bytes >= 256 ? 2 : 1);
}

/// Columns of hot class c (1..3) for a budget of `budget` bytes: rows of 128·2^(c-1) bytes.
inline std::int64_t spmm_hot_count(std::int64_t budget, int c) {
  return budget / (std::int64_t{64} << c);
}

/// Column ids must leave their top two bits free for the classes.
template <class I>
constexpr std::int64_t kSpmmHotMaxCols = std::int64_t{1} << (sizeof(I) * 8 - 2);

/// The class of a flagged column id and the id itself.
template <class I>
__host__ __device__ __forceinline__ int spmm_hot_class(I j) {
  using U = std::make_unsigned_t<I>;
  return static_cast<int>(static_cast<U>(j) >> (sizeof(I) * 8 - 2));
}
template <class I>
__host__ __device__ __forceinline__ I spmm_hot_strip(I j) {
  using U = std::make_unsigned_t<I>;
  return static_cast<I>(static_cast<U>(j) & (~U{0} >> 2));
}

/// Counts launches of the hinted group kernel (debug_spmm_hinted_launches reads it).
std::atomic<std::int64_t>& spmm_hinted_launch_count() noexcept;

/// The flagged copy of a graph's column ids (device, nnz entries).
struct HotColumnsSlot : ExtensionSlot {
  DeviceBuffer col;
  bool no_room = false;  ///< the GPU had no memory for it: gathers run without hints
};

/// Builds the flagged copy of `col_idx` (device, nnz entries over `cols` columns, cols at most
/// kSpmmHotMaxCols<I>): in-degrees by atomic counts, a radix sort of them for the class
/// thresholds, then id | class << (bits - 2). A column is in class c or above when its
/// in-degree exceeds the (K_c + 1)-th largest one (K_c = spmm_hot_count(budget, c)): at most K_c
/// columns are, ties at the threshold left out.
/// Enqueued on `stream`; returns after the thresholds were read (one synchronization). When the
/// GPU has no room for the copy and its scratch, returns a slot with no_room set (logged with
/// SPINDLE_LOG=plan) instead of throwing: the hints only change cache policy.
template <class I>
std::unique_ptr<HotColumnsSlot> build_hot_columns(const I* col_idx, std::int64_t nnz,
                                                  std::int64_t cols, std::int64_t budget,
                                                  cudaStream_t stream);

}  // namespace spindle::detail::cuda
