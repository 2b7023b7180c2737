// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file betweenness.hpp
/// @brief Betweenness centrality (Brandes, "A Faster Algorithm for Betweenness Centrality"),
/// exact or from sampled sources, unweighted, with a batch of sources at once as SpMM over dense
/// frontier matrices; written only against the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of betweenness_centrality(); the defaults are networkx.betweenness_centrality's.
struct BetweennessOptions {
  /// Number of sampled sources (networkx's k); -1: every vertex (exact). 0 <= k <= n otherwise
  /// (InvalidArgument); k == n is the exact computation, as in networkx.
  std::int64_t k = -1;
  /// Seed of the source sampling: k distinct vertices drawn by a partial Fisher–Yates shuffle
  /// driven by std::mt19937_64(seed). This is not networkx's random.Random(seed).sample, so a
  /// seed does not pick the same sources as networkx; to reproduce a networkx run, pass its
  /// sources in `sources`.
  std::uint64_t seed = 0;
  /// Explicit sources (internal ids, distinct, in range): the sampled computation over exactly
  /// these, with networkx's scaling for k = sources.size(). Overrides k and seed when non-empty.
  std::vector<std::int64_t> sources;
  /// networkx's normalized: divide by the number of (s, t) pairs that could pass through v.
  bool normalized = true;
  /// networkx's endpoints: count the endpoints of each path as on it.
  bool endpoints = false;
  /// false: A is an undirected graph stored in both directions, and unnormalized scores are
  /// halved (each unordered pair counted once), as networkx does on an nx.Graph. true: directed.
  bool directed = true;
  /// Sources per batch (columns of the nine n x batch dense matrices of doubles); 0 picks
  /// min(64, max(1, 2^28 / (48 n))), at most about 384 MiB of matrices (on R-MAT 20, 64 sources
  /// in batches of 5 ran in 44 s against 74 s in batches of 32: small batches stay in cache).
  std::int64_t batch = 0;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxm kernel (Auto: the planner decides).
  MxmKernel mxm_kernel = MxmKernel::Auto;
  /// Cooperative cancellation: called before every BFS level and dependency level of every
  /// batch, never inside an operation; returning true stops the call with spindle::Cancelled.
  std::function<bool()> cancel = nullptr;
};

/// Result of betweenness_centrality().
struct BetweennessResult {
  /// Betweenness of every vertex (internal ids), scaled as networkx scales it.
  std::vector<double> centrality;
  /// The sources used (all vertices in order for the exact computation).
  std::vector<std::int64_t> sources;
  /// Batches run.
  std::int64_t batches = 0;
};

/// Betweenness centrality of A (u -> v is A(u, v); shortest paths by hop count, values ignored).
///
/// Brandes's two sweeps for a batch of b sources at once, over n x b dense matrices: the forward
/// sweep is a BFS whose frontier F holds path counts, one mxm per level (F' = Aᵀ F with
/// transpose_a, kept where not yet visited, by ewise with a 0/1 matrix), recording each entry's
/// level and path count sigma; the backward sweep goes down the levels, W = [level = d] ⊙
/// (1 + delta) / sigma, then delta += [level = d − 1] ⊙ sigma ⊙ (A W), one mxm per level. Row
/// sums (gemm with a ones column) add the batch's dependencies to the scores. Level emptiness is
/// read on the host (one read of the frontier per level; on CUDA one download each).
/// Scaling follows networkx's _rescale exactly (N = n, or n − 1 without endpoints; sampled
/// sources scaled by 1 / ((k − 1)(N − 1)) and the others by 1 / (k (N − 1)) when normalized
/// without endpoints, and so on; no scaling when N < 2).
/// @throws InvalidArgument on a non-square graph or bad options (k outside [-1, n], repeated or
///         out-of-range sources, batch < 0); Cancelled; OutOfMemory / Unsupported / DeviceError
///         as the ops.
template <class I, class V>
BetweennessResult betweenness_centrality(const Graph<I, V>& A,
                                         const BetweennessOptions& options = {});

}  // namespace spindle
