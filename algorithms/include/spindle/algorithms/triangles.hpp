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
  /// Where the ops run (Auto: CUDA when a device is present and the products are many). The
  /// counts are exact on either.
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
/// With L that graph's strictly lower triangle (after relabelling the vertices by increasing
/// degree when the largest degree exceeds 8 times the mean: the counts do not depend on the
/// labelling, and on power-law graphs it removes most products, as LAGraph's triangle count
/// sorts by degree for the same reason):
///   - total: C1<L> = L plus.pair L^T, C1(c,b) = the triangles {a < b < c} with top c and
///     middle b (each triangle counted once), total = Σ C1;
///   - per vertex, also C3<L> = L^T plus.pair L (with transpose_a), C3(b,a) = the triangles with
///     middle b and lowest a; t(v) = row sum of C1 + column sum of C1 + column sum of C3;
///   - clustering(v) = 2 t(v) / (d(v) (d(v) - 1)) with d(v) the number of distinct neighbours
///     other than v (0 when d(v) < 2), divided in double as networkx does.
/// The products are masked by L, so the planner skips all work outside it.
/// @throws InvalidArgument on a non-square graph; Unsupported for Device::Cuda without a
///         device; OutOfMemory.
template <class I, class V>
TriangleResult triangles(const Graph<I, V>& A, const TriangleOptions& options = {});

}  // namespace spindle
