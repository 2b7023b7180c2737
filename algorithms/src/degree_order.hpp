// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file degree_order.hpp
/// @brief Ordering the vertices of an undirected graph by degree, and its lower triangle in that
/// order (private; shared by triangle counting and the k-truss).

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "algorithms/src/undirected_pattern.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/graph.hpp"

namespace spindle {
namespace detail {

/// rank[v]: v's position when the vertices are ordered by increasing degree, ties by increasing
/// id (a stable sort by degree), so rank[a] < rank[b] exactly when (degree[a], a) < (degree[b],
/// b). A counting sort: one pass over the vertices per step, O(n + largest degree).
template <class I>
std::vector<I> degree_rank(const std::vector<I>& degree) {
  const std::int64_t n = static_cast<std::int64_t>(degree.size());
  I top = 0;
  for (const I d : degree) top = std::max(top, d);
  std::vector<I> start(static_cast<std::size_t>(top) + 2, I(0));
  for (const I d : degree) ++start[static_cast<std::size_t>(d) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  std::vector<I> rank = large_workspace<I>(static_cast<std::size_t>(n), "degree order: ranks");
  for (std::int64_t v = 0; v < n; ++v) rank[v] = start[static_cast<std::size_t>(degree[v])]++;
  return rank;
}

/// The strictly lower part of U (symmetric, no diagonal) after relabelling vertex v as rank[v]:
/// row rank[u] holds rank[w] for each neighbour w of u with rank[w] < rank[u], increasing. Rows
/// are counted, then filled, in parallel, each on one thread, so the result is the same on any
/// number of threads.
template <class I>
Graph<I, Pattern> degree_ordered_lower(const Graph<I, Pattern>& U, const std::vector<I>& rank) {
  const std::int64_t n = U.rows();
  const I* rp = U.row_ptr().data();
  const I* ci = U.col_idx().data();
  const I* rk = rank.data();
  const bool parallel = n + U.nnz() > kPrepParallelWork;
  std::vector<I> lrp = large_workspace<I>(static_cast<std::size_t>(n) + 1, "degree order: rows");
#pragma omp parallel for schedule(dynamic, kPrepRowChunk) if (parallel)
  for (std::int64_t u = 0; u < n; ++u) {
    const I ru = rk[u];
    I c = 0;
    for (I k = rp[u]; k < rp[u + 1]; ++k) c += rk[ci[k]] < ru ? 1 : 0;
    lrp[static_cast<std::size_t>(ru) + 1] = c;
  }
  for (std::int64_t r = 0; r < n; ++r) lrp[r + 1] += lrp[r];
  std::vector<I> lci =
      large_workspace<I>(static_cast<std::size_t>(lrp[n]), "degree order: columns");
  // A row relabelled is no longer sorted. Short rows are sorted; a long row whose labels lie in
  // a range of few words per entry is set as bits in a bitmap of [0, rank[u]) and read back in
  // order instead: a sort costs about log2(length) comparisons per entry, the bitmap a word read
  // per 64 labels of the range. At 16 words per entry the two cost about the same (symmetrized
  // R-MAT 18, one thread: the rows' fill and order took 128 ms all sorted, 56 ms so).
  constexpr std::int64_t kBitmapWordsPerEntry = 16;
  constexpr I kShortRow = 32;
  auto use_bitmap = [&](I ru, std::int64_t words) {
    const I len = lrp[static_cast<std::size_t>(ru) + 1] - lrp[ru];
    return len > kShortRow && words <= kBitmapWordsPerEntry * len;
  };
  // The bitmaps are allocated here, one per thread and as large as the largest row needs, so
  // that the parallel region below allocates nothing and no exception can start inside it.
  std::int64_t max_words = 0;
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t words = (r + 63) / 64;
    if (use_bitmap(static_cast<I>(r), words)) max_words = std::max(max_words, words);
  }
  const int threads = parallel ? omp_get_max_threads() : 1;
  std::vector<std::uint64_t> bitmaps = large_workspace<std::uint64_t>(
      static_cast<std::size_t>(max_words) * static_cast<std::size_t>(threads),
      "degree order: bitmaps");
  std::fill(bitmaps.begin(), bitmaps.end(), std::uint64_t{0});
#pragma omp parallel num_threads(threads) if (parallel)
  {
    // This thread's bitmap: all zero between rows.
    std::uint64_t* const bits =
        bitmaps.data() + static_cast<std::size_t>(max_words) * omp_get_thread_num();
#pragma omp for schedule(dynamic, kPrepRowChunk)
    for (std::int64_t u = 0; u < n; ++u) {
      const I ru = rk[u];
      I* const first = lci.data() + lrp[ru];
      const std::int64_t words = (static_cast<std::int64_t>(ru) + 63) / 64;
      if (!use_bitmap(ru, words)) {
        I* o = first;
        for (I k = rp[u]; k < rp[u + 1]; ++k) {
          if (rk[ci[k]] < ru) *o++ = rk[ci[k]];
        }
        std::sort(first, o);
        continue;
      }
      for (I k = rp[u]; k < rp[u + 1]; ++k) {
        const I w = rk[ci[k]];
        if (w < ru) bits[w / 64] |= std::uint64_t{1} << (w % 64);
      }
      I* o = first;
      for (std::int64_t x = 0; x < words; ++x) {
        std::uint64_t b = bits[x];
        bits[x] = 0;
        while (b != 0) {
          *o++ = static_cast<I>(x * 64 + __builtin_ctzll(b));
          b &= b - 1;
        }
      }
    }
  }
  return Graph<I, Pattern>(static_cast<I>(n), static_cast<I>(n), std::move(lrp), std::move(lci));
}

}  // namespace detail
}  // namespace spindle
