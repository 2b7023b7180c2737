// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file undirected_pattern.hpp
/// @brief The undirected simple graph underlying a square graph, as a pattern (private; shared by
/// triangle counting and the k-truss).

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "spindle/detail/host_pages.hpp"
#include "spindle/error.hpp"
#include "spindle/graph.hpp"

namespace spindle {
namespace detail {

/// Below this many rows + stored entries the preparation passes stay on the calling thread (an
/// OpenMP fork/join costs microseconds, more on a busy machine; the ops' CPU kernels draw the
/// line at the same order of work).
inline constexpr std::int64_t kPrepParallelWork = std::int64_t{1} << 16;

/// Rows per chunk of the preparation passes' dynamic schedule: power-law row lengths differ by
/// orders of magnitude, so the rows are dealt out in chunks, far more chunks than threads.
inline constexpr int kPrepRowChunk = 512;

/// A's rows beside its (cached) transpose's: row i of the pattern of A + A^T is their merge.
template <class I>
struct BothWays {
  std::int64_t n = 0;
  const I* arp = nullptr;
  const I* aci = nullptr;
  const I* trp = nullptr;
  const I* tci = nullptr;

  template <class V>
  explicit BothWays(const Graph<I, V>& A) : n(A.rows()) {
    const Graph<I, V>& At = A.transpose();  // cached by A: the pointers stay valid
    arp = A.row_ptr().data();
    aci = A.col_idx().data();
    trp = At.row_ptr().data();
    tci = At.col_idx().data();
  }

  /// Calls emit(j) for the entries j < stop of row i of the pattern of A + A^T without its
  /// diagonal, in increasing j: the merge of A's row i and A^T's, both sorted, which ends at the
  /// first column reaching `stop`.
  template <class Emit>
  void row(std::int64_t i, std::int64_t stop, Emit&& emit) const {
    I p = arp[i];
    I q = trp[i];
    const I pe = arp[i + 1];
    const I qe = trp[i + 1];
    while (p < pe || q < qe) {
      I j;
      if (q >= qe || (p < pe && aci[p] < tci[q])) {
        j = aci[p++];
      } else if (p >= pe || tci[q] < aci[p]) {
        j = tci[q++];
      } else {
        j = aci[p++];
        ++q;
      }
      if (j >= stop) return;
      if (j != i) emit(j);
    }
  }
};

/// Row lengths of the undirected simple graph underlying A (see undirected_pattern): degree[i],
/// the distinct neighbours of i other than i, and below[i], those of them less than i.
template <class I>
struct UndirectedCounts {
  std::vector<I> degree;
  std::vector<I> below;
};

/// Counts the rows of undirected_pattern(A, ...) without building it: one parallel pass of
/// merges, the same on any number of threads. Builds A's transpose (cached).
template <class I, class V>
UndirectedCounts<I> undirected_counts(const Graph<I, V>& A) {
  const BothWays<I> both(A);
  const std::int64_t n = A.rows();
  UndirectedCounts<I> c;
  c.degree = large_workspace<I>(static_cast<std::size_t>(n), "undirected graph: degrees");
  c.below =
      large_workspace<I>(static_cast<std::size_t>(n), "undirected graph: lower neighbour counts");
  I* degree = c.degree.data();
  I* below = c.below.data();
#pragma omp parallel for schedule(dynamic, kPrepRowChunk) if (n + A.nnz() > kPrepParallelWork)
  for (std::int64_t i = 0; i < n; ++i) {
    I d = 0;
    I b = 0;
    both.row(i, n, [&](I j) {
      ++d;
      b += j < i ? 1 : 0;
    });
    degree[i] = d;
    below[i] = b;
  }
  return c;
}

/// The pattern of A + A^T without its diagonal: an entry (i, j), i != j, wherever A(i, j) or
/// A(j, i) is stored (values ignored). With `lower`, only the entries j < i. Rows of A and of
/// its cached transpose are both sorted, so each row is a merge; rows are counted, then filled,
/// in parallel, each on one thread, so the result is the same on any number of threads.
/// @param counts  the result's row lengths where the caller has them already
///                (undirected_counts: `degree`, or `below` with `lower`); nullptr: counted here
/// @throws InvalidArgument (naming `who`) when the result has more entries than I indexes.
template <class I, class V>
Graph<I, Pattern> undirected_pattern(const Graph<I, V>& A, bool lower, const char* who,
                                     const std::vector<I>* counts = nullptr) {
  const BothWays<I> both(A);
  const std::int64_t n = A.rows();
  const bool parallel = n + A.nnz() > kPrepParallelWork;
  // Sorted rows: with `lower` the merge ends at the diagonal.
  const auto stop = [lower, n](std::int64_t i) { return lower ? i : n; };
  std::vector<I> rp = large_workspace<I>(static_cast<std::size_t>(n) + 1, who);
  if (counts != nullptr) {
    std::copy(counts->begin(), counts->end(), rp.begin() + 1);
  } else {
#pragma omp parallel for schedule(dynamic, kPrepRowChunk) if (parallel)
    for (std::int64_t i = 0; i < n; ++i) {
      I c = 0;
      both.row(i, stop(i), [&c](I) { ++c; });
      rp[i + 1] = c;
    }
  }
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    total += rp[i + 1];
    // Each edge is held in both directions: up to 2 nnz(A) entries, which I must index.
    if (total > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
      throw InvalidArgument(std::string(who) + ": the undirected graph of " +
                            std::to_string(A.nnz()) +
                            " stored edges has more entries than int32 indices hold; read it "
                            "with int64 indices");
    }
    rp[i + 1] = static_cast<I>(total);
  }
  std::vector<I> ci = large_workspace<I>(static_cast<std::size_t>(total), who);
  I* out = ci.data();
#pragma omp parallel for schedule(dynamic, kPrepRowChunk) if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    I* o = out + rp[i];
    both.row(i, stop(i), [&o](I j) { *o++ = j; });
  }
  return Graph<I, Pattern>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci));
}

}  // namespace detail
}  // namespace spindle
