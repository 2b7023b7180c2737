// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file parallel.hpp
/// @brief OpenMP work splitting shared by the CPU kernels: nnz-balanced row blocks and plain
/// index blocks.
///
/// Every CPU kernel computes each output element on one thread in a fixed order, so where the
/// blocks fall never changes a result: the split may (and does) depend on the thread count.
/// Reductions across elements (reduce.hpp) use their own fixed blocking instead.

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/executor.hpp"

namespace spindle::detail::cpu_kernels {

/// Below this much work (rows + nnz, or elements) a kernel stays on the calling thread: an
/// OpenMP fork/join costs a few microseconds, about the time of 30K streamed multiply-adds.
inline constexpr std::int64_t kSerialWork = std::int64_t{1} << 15;

/// Row blocks per thread. Several, so that dynamic scheduling evens out blocks whose cache
/// behaviour differs (power-law graphs gather from very different parts of u); few, so that the
/// scheduling cost stays far below the work of a block.
inline constexpr int kBlocksPerThread = 4;

/// Work (same units as kSerialWork) each thread of a parallel kernel should have. Waking a
/// thread for a region costs microseconds on an idle machine and can cost milliseconds on a busy
/// one, where the woken thread waits for a core while the others wait for it at the join; with
/// fewer than this many units per thread that wait outweighs the work. Measured with `spindle
/// bench pagerank-cpu` on R-MAT 12-20 on a 2-core machine, idle and beside a busy loop
/// (docs/performance.md): below it, PageRank ran slower with 2 threads than with 1.
inline constexpr std::int64_t kWorkPerThread = std::int64_t{1} << 17;

/// The most threads a kernel may use from here (1 inside an enclosing parallel region): the
/// bound for per-thread workspaces, which threads_for_work() never exceeds.
inline int worker_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

/// Threads worth using for `work` units: 1 below kSerialWork, else one per kWorkPerThread units,
/// at most worker_threads() and at most the CPUs other processes leave free
/// (spindle::cpu_threads_now(): on a 2-core machine beside a busy loop, 2 threads ran PageRank
/// up to 2x slower than 1, the region waiting for the thread that shares its core). Results
/// never depend on it (see the file comment), so it may change from call to call.
inline int threads_for_work(std::int64_t work) {
  if (work < kSerialWork || omp_in_parallel()) return 1;
  const std::int64_t wanted = work / kWorkPerThread;
  if (wanted <= 1) return 1;
  return static_cast<int>(std::min<std::int64_t>(cpu_threads_now(), wanted));
}

/// The smallest row r with r + row_ptr[r] >= target: the merge-path cost model charges one unit
/// per row (loop and store) and one per stored entry (load and multiply-add).
template <class I>
std::int64_t balanced_row_split(const I* row_ptr, std::int64_t rows, std::int64_t target) {
  std::int64_t lo = 0;
  std::int64_t hi = rows;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (mid + static_cast<std::int64_t>(row_ptr[mid]) < target) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// Boundaries of `blocks` row ranges of about equal rows + nnz (blocks + 1 values, first 0,
/// last rows; ranges may be empty).
template <class I>
std::vector<std::int64_t> balanced_row_blocks(const I* row_ptr, std::int64_t rows,
                                              std::int64_t blocks) {
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(blocks) + 1, 0);
  const std::int64_t work = rows + static_cast<std::int64_t>(row_ptr[rows]);
  for (std::int64_t b = 1; b < blocks; ++b) {
    // work * b / blocks without overflow for any realistic work (< 2^62 / blocks).
    bounds[b] = balanced_row_split(row_ptr, rows, work / blocks * b + work % blocks * b / blocks);
  }
  bounds[blocks] = rows;
  return bounds;
}

/// Calls f(r0, r1) for row ranges covering [0, rows), in parallel over nnz-balanced blocks
/// (one block per call of f; no two calls share a row). `cost_per_nnz` scales the per-entry
/// cost for the serial cut-off (e.g. the dense width N of SpMM).
template <class I, class F>
void for_each_row_block(const I* row_ptr, std::int64_t rows, F&& f, std::int64_t cost_per_nnz = 1) {
  if (rows <= 0) return;
  const std::int64_t work = rows + static_cast<std::int64_t>(row_ptr[rows]) * cost_per_nnz;
  const int threads = threads_for_work(work);
  if (threads <= 1 || rows < 2) {
    f(std::int64_t{0}, rows);
    return;
  }
  const std::int64_t blocks =
      std::min<std::int64_t>(rows, std::int64_t{threads} * kBlocksPerThread);
  const std::vector<std::int64_t> bounds = balanced_row_blocks(row_ptr, rows, blocks);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t b = 0; b < blocks; ++b) {
    if (bounds[b] < bounds[b + 1]) f(bounds[b], bounds[b + 1]);
  }
}

/// Calls f(i0, i1) for index ranges covering [0, n), statically split over the threads
/// (elementwise work of equal cost per index).
template <class F>
void for_each_index_block(std::int64_t n, F&& f) {
  if (n <= 0) return;
  const int threads = threads_for_work(n);
  if (threads <= 1) {
    f(std::int64_t{0}, n);
    return;
  }
  const std::int64_t blocks = std::min<std::int64_t>(n / 4096 + 1, threads);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t i0 = n / blocks * b + std::min(b, n % blocks);
    const std::int64_t i1 = n / blocks * (b + 1) + std::min(b + 1, n % blocks);
    f(i0, i1);
  }
}

}  // namespace spindle::detail::cpu_kernels
