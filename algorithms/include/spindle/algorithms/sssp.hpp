// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sssp.hpp
/// @brief Single-source shortest paths by min_plus relaxation to a fixed point (Bellman–Ford),
/// written only against the ops/ API.

#include <cstdint>
#include <functional>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Options of sssp().
struct SsspOptions {
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation (progress bars, time limits, Ctrl-C in the Python bindings): called
  /// on the calling thread before every relaxation round, never inside an operation; returning true
  /// stops the call with spindle::Cancelled, and an exception it throws propagates unchanged.
  /// Empty: never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of sssp().
template <class T>
struct SsspResult {
  /// Distance of every vertex from the source (full vector); +inf where unreachable.
  Vector<T> distance;
  /// Relaxation rounds run (the last one changed nothing).
  std::int64_t rounds = 0;
  /// Vertices reached (finite distance, including the source).
  std::int64_t reached = 0;
};

/// Shortest path lengths from `source` along out-edges, with weights A(u, v) (1 for pattern
/// graphs: hop counts). Negative weights are allowed. Round r relaxes from the vertices whose
/// distance changed in round r−1: d ← min(d, f min.+ A) via vxm with the min_plus semiring,
/// until no distance changes; after round r, d holds the shortest walks of at most r edges.
/// Without a negative cycle the fixed point is reached within n rounds.
/// @tparam T  distance type (float or double)
/// @throws IndexOutOfBounds when source is not in [0, n); InvalidArgument on a non-square graph
///         or when a negative cycle is reachable from the source (no fixed point after n rounds);
///         Unsupported / DeviceError as the ops.
template <class T, class I, class V>
SsspResult<T> sssp(const Graph<I, V>& A, std::int64_t source, const SsspOptions& options = {});

}  // namespace spindle
