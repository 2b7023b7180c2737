// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file triangles.hpp
/// @brief Triangle counting and the local clustering coefficient by masked sparse x sparse mxm,
/// written only against the ops/ API.

#include <cstdint>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of triangles().
struct TriangleOptions {
  /// Also count the triangles through each vertex (networkx `nx.triangles`).
  bool per_vertex = false;
  /// Also compute each vertex's local clustering coefficient (networkx `nx.clustering`,
  /// unweighted); implies the per-vertex counts.
  bool clustering = false;
  /// Where the ops run. The sparse mxm has no CUDA kernel yet: Auto runs on the CPU, Cuda throws
  /// Unsupported.
  Device device = Device::Auto;
  /// Forces a sparse mxm kernel (Auto: the planner decides).
  SpgemmKernel kernel = SpgemmKernel::Auto;
};

/// Result of triangles(), indexed by internal vertex id.
struct TriangleResult {
  std::int64_t total = 0;                ///< triangles in the graph, each counted once
  std::vector<std::int64_t> per_vertex;  ///< triangles through each vertex (when asked)
  std::vector<double> clustering;        ///< 2 t(v) / (d(v) (d(v) - 1)); 0 where d(v) < 2
  /// Edges of the undirected simple graph the counts are over.
  std::int64_t edges = 0;
  /// The total was counted after relabelling the vertices by degree (skewed graphs).
  bool degree_ordered = false;
};

/// Counts the triangles of the undirected simple graph underlying A: an edge {u, v} for u != v
/// wherever A(u, v) or A(v, u) is stored (values ignored; self-loops ignored), as networkx's
/// `nx.triangles` / `nx.clustering` see a graph (a directed one after `to_undirected()`).
/// With U that graph's pattern and L its strictly lower triangle:
///   - total only: C<L> = L plus.pair L^T (C(i,j) = common neighbours k < j of i > j, each
///     triangle counted once), total = Σ C; when the largest degree exceeds 8 times the mean,
///     L is taken after relabelling the vertices by increasing degree, which leaves the count
///     unchanged and removes most products on power-law graphs (LAGraph's triangle count sorts
///     by degree for the same reason);
///   - per vertex: C<L> = U plus.pair U^T (C(i,j) = |N(i) ∩ N(j)| for each edge j < i), then
///     t(v) = (Σ_j C(v,j) + Σ_i C(i,v)) / 2 and total = Σ C / 3;
///   - clustering(v) = 2 t(v) / (d(v) (d(v) - 1)) with d(v) the degree in U (0 when d(v) < 2),
///     divided in double as networkx does.
/// Both products are masked by L, so the planner picks the dot-product form on sparse graphs.
/// @throws InvalidArgument on a non-square graph; Unsupported for Device::Cuda; OutOfMemory.
template <class I, class V>
TriangleResult triangles(const Graph<I, V>& A, const TriangleOptions& options = {});

}  // namespace spindle
