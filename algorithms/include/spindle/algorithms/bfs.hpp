// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file bfs.hpp
/// @brief Breadth-first search by masked vxm (level-synchronous, push direction along out-edges),
/// written only against the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of bfs().
struct BfsOptions {
  /// Also compute a BFS tree: parent[v] = the smallest-id in-neighbor of v on the previous level
  /// (deterministic), parent[source] = source.
  bool parents = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation (progress bars, time limits, Ctrl-C in the Python bindings): called
  /// on the calling thread before every level, never inside an operation; returning true stops the
  /// call with spindle::Cancelled, and an exception it throws propagates unchanged. Empty: never
  /// called.
  std::function<bool()> cancel = nullptr;
};

/// Result of bfs(), indexed by internal vertex id.
struct BfsResult {
  /// Hops from the source along out-edges; −1 for unreachable vertices. level[source] = 0.
  std::vector<std::int64_t> level;
  /// Parents (only when requested, else empty); −1 for unreachable vertices.
  std::vector<std::int64_t> parent;
  /// Number of levels (largest finite level + 1; 0 for an empty graph).
  std::int64_t depth = 0;
  /// Vertices reached (including the source).
  std::int64_t reached = 0;
};

/// BFS from `source` over the edges of A (u -> v is A(u, v)); values are ignored.
/// Per level: q' = q any.pair A masked by the complement of the visited set (with replace), then
/// the levels (and parents) of q' are assigned. Parents use vxm with min_times over the pattern
/// where the frontier holds (id + 1): the product is the smallest parent id + 1, exact in double
/// (over a valued graph, the pattern is a copy made at the first call and kept with the graph).
/// On CUDA the vectors live on the device; the levels and parents are downloaded once each.
/// An empty graph (0 vertices) has no valid source.
/// @throws IndexOutOfBounds when source is not in [0, n); InvalidArgument on a non-square graph;
///         Unsupported / DeviceError as the ops.
template <class I, class V>
BfsResult bfs(const Graph<I, V>& A, std::int64_t source, const BfsOptions& options = {});

}  // namespace spindle
