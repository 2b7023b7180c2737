// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file kcore.hpp
/// @brief Core numbers (k-core decomposition) by level-synchronous peeling, written only against
/// the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of core_numbers().
struct KCoreOptions {
  /// false (default): A is an undirected graph stored in both directions (a symmetric pattern;
  /// InvalidArgument otherwise) and a vertex's degree is its number of neighbors, as
  /// networkx.core_number on an nx.Graph. true: A is directed and the degree is in-degree +
  /// out-degree, a neighbor joined both ways counting twice, as networkx.core_number on an
  /// nx.DiGraph.
  bool directed = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation: called on the calling thread before every peeling step, never
  /// inside an operation; returning true stops the call with spindle::Cancelled. Empty: never
  /// called.
  std::function<bool()> cancel = nullptr;
};

/// Result of core_numbers(), indexed by internal vertex id.
struct KCoreResult {
  /// core[v]: the largest k such that v belongs to a subgraph whose every vertex has degree >= k
  /// inside it (0 for isolated vertices).
  std::vector<std::int64_t> core;
  /// The largest core number (0 for a graph without edges or vertices).
  std::int64_t max_core = 0;
  /// Peeling steps run (each removes every remaining vertex of degree <= k at once).
  std::int64_t steps = 0;
};

/// Core numbers of A by peeling (Batagelj and Zaversnik, "An O(m) Algorithm for Cores
/// Decomposition of Networks", level-synchronous): k starts at the smallest degree; every
/// remaining vertex of degree <= k gets core number k and is removed at once (a masked apply),
/// its removal lowers its neighbors' degrees (one mxv over plus_times of the removed set, and a
/// vxm in directed mode), and k rises to the smallest remaining degree when no vertex of degree
/// <= k is left. Values are ignored.
/// @throws InvalidArgument on a non-square graph, on self-loops (networkx refuses them too:
///         remove them first), and in undirected mode on a structure that is not symmetric;
///         Cancelled; Unsupported / DeviceError as the ops.
template <class I, class V>
KCoreResult core_numbers(const Graph<I, V>& A, const KCoreOptions& options = {});

}  // namespace spindle
