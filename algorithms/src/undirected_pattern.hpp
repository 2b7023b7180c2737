// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file undirected_pattern.hpp
/// @brief The undirected simple graph underlying a square graph, as a pattern (private; shared by
/// triangle counting and the k-truss).

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "spindle/error.hpp"
#include "spindle/graph.hpp"

namespace spindle {
namespace detail {

/// The pattern of A + A^T without its diagonal: an entry (i, j), i != j, wherever A(i, j) or
/// A(j, i) is stored (values ignored). With `lower`, only the entries j < i. Rows of A and of
/// its cached transpose are both sorted, so each row is a merge.
/// @throws InvalidArgument (naming `who`) when the result has more entries than I indexes.
template <class I, class V>
Graph<I, Pattern> undirected_pattern(const Graph<I, V>& A, bool lower, const char* who) {
  const Graph<I, V>& At = A.transpose();
  const std::int64_t n = A.rows();
  const I* arp = A.row_ptr().data();
  const I* aci = A.col_idx().data();
  const I* trp = At.row_ptr().data();
  const I* tci = At.col_idx().data();
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0);
  std::vector<I> ci;
  ci.reserve(static_cast<std::size_t>(A.nnz()) * (lower ? 1 : 2));
  for (std::int64_t i = 0; i < n; ++i) {
    I p = arp[i];
    I q = trp[i];
    while (p < arp[i + 1] || q < trp[i + 1]) {
      I j;
      if (q >= trp[i + 1] || (p < arp[i + 1] && aci[p] < tci[q])) {
        j = aci[p++];
      } else if (p >= arp[i + 1] || tci[q] < aci[p]) {
        j = tci[q++];
      } else {
        j = aci[p++];
        ++q;
      }
      if (lower ? j >= i : j == i) {
        if (lower) break;  // sorted: nothing below the diagonal follows
        continue;
      }
      ci.push_back(j);
    }
    // Each edge is held in both directions: up to 2 nnz(A) entries, which I must index.
    if (ci.size() > static_cast<std::size_t>(std::numeric_limits<I>::max())) {
      throw InvalidArgument(std::string(who) + ": the undirected graph of " +
                            std::to_string(A.nnz()) +
                            " stored edges has more entries than int32 indices hold; read it "
                            "with int64 indices");
    }
    rp[i + 1] = static_cast<I>(ci.size());
  }
  return Graph<I, Pattern>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci));
}

}  // namespace detail
}  // namespace spindle
