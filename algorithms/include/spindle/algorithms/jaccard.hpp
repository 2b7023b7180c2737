// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file jaccard.hpp
/// @brief Jaccard coefficients of vertex pairs (networkx.jaccard_coefficient) by SpMM over dense
/// neighbor-indicator matrices, written only against the ops/ API.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of jaccard_coefficient().
struct JaccardOptions {
  /// Distinct second vertices per batch (columns of the dense matrices, 2 of n x batch doubles);
  /// 0 picks min(256, max(1, 2^27 / (16 n))) (at most about 128 MiB).
  std::int64_t batch = 0;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Cooperative cancellation: called before every batch; returning true stops the call with
  /// spindle::Cancelled.
  std::function<bool()> cancel = nullptr;
};

/// Jaccard coefficient of each pair (u, v) exactly as networkx.jaccard_coefficient(G, ebunch)
/// computes it on an undirected graph: |N(u) ∩ N(v) \ {u, v}| / |N(u) ∪ N(v)|, 0 when the union
/// is empty, with N(u) the neighbors of u (u itself when it has a self-loop; networkx's
/// common_neighbors leaves u and v out, its union does not). Without self-loops this is the
/// plain |N(u) ∩ N(v)| / |N(u) ∪ N(v)| for u != v. A must be symmetric (an undirected graph
/// stored both ways); values are ignored.
///
/// The pairs are grouped by their second vertex; for a batch of b such vertices, the indicator
/// columns of their neighborhoods are X = Aᵀ E (E one-hot, one mxm) and the common-neighbor
/// counts of every vertex with each are C = A X (a second mxm, plus_times over the pattern):
/// C(u, k) = |N(u) ∩ N(v_k)|, picked for each pair on the host with the degrees (reduce_rows).
/// Cost O(m · distinct second vertices): fine for a list of pairs, quadratic for every edge of a
/// large graph (a masked sparse × sparse product is the tool there).
/// @returns one coefficient per pair, in the order given.
/// @throws InvalidArgument on a non-square or non-symmetric graph or a bad batch; IndexOutOfBounds
///         for a vertex outside [0, n); Cancelled; OutOfMemory / Unsupported / DeviceError as the
///         ops.
template <class I, class V>
std::vector<double> jaccard_coefficient(
    const Graph<I, V>& A, const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs,
    const JaccardOptions& options = {});

/// The pairs (u, v) with u < v of A's stored edges (each undirected edge once, self-loops
/// skipped), in row order: the "all pairs on the graph's edges" input of jaccard_coefficient.
template <class I, class V>
std::vector<std::pair<std::int64_t, std::int64_t>> edge_pairs(const Graph<I, V>& A);

}  // namespace spindle
