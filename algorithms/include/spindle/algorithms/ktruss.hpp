// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file ktruss.hpp
/// @brief The k-truss (networkx.k_truss) and truss numbers by repeated masked sparse x sparse
/// mxm, written only against the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of k_truss().
struct KTrussOptions {
  /// Also compute the truss number of every edge (KTrussResult::truss_numbers). Costs the peeling
  /// of every truss up to the largest, not only the k-truss.
  bool truss_numbers = false;
  /// Where the ops run (Auto: CUDA for products of 2^20 or more when a device is present). Cuda
  /// without a device throws Unsupported once a product runs (k = 2 and graphs without edges
  /// need none).
  Device device = Device::Auto;
  /// Forces the sparse mxm kernel of every product (Auto: the planner decides per product).
  SpgemmKernel kernel = SpgemmKernel::Auto;
  /// Cooperative cancellation: called on the calling thread before every round of products
  /// (KTrussResult::rounds), never inside an operation; returning true stops the call with
  /// spindle::Cancelled. Empty: never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of k_truss(), in A's vertex ids.
template <class I>
struct KTrussResult {
  /// The k-truss as an n x n symmetric pattern graph: each of its edges {u, v} stored as (u, v)
  /// and (v, u), no self-loops; vertices outside the truss have empty rows.
  Graph<I, Pattern> truss;
  /// The vertices networkx's k_truss keeps: those with at least one edge in the truss,
  /// increasing.
  std::vector<I> vertices;
  /// Edges of the truss, each counted once.
  std::int64_t edges = 0;
  /// Edges of the undirected simple graph underlying A, each counted once.
  std::int64_t input_edges = 0;
  /// Rounds of masked products: the first support count (three products), then one support
  /// update (two products) per round that removed an edge lying in a triangle.
  std::int64_t rounds = 0;
  /// With KTrussOptions::truss_numbers: n x n and symmetric like `truss`, holding every edge
  /// {u, v} of the undirected simple graph underlying A with its truss number, the largest k
  /// whose k-truss contains it (2 for an edge in no triangle). Empty (0 x 0) otherwise.
  Graph<I, double> truss_numbers;
  /// With KTrussOptions::truss_numbers: the largest truss number (0 without edges).
  std::int64_t max_truss = 0;
};

/// The k-truss of the undirected simple graph underlying A (an edge {u, v} for u != v wherever
/// A(u, v) or A(v, u) is stored; values, directions and self-loops ignored), exactly as
/// networkx's `nx.k_truss(G, k)` on that graph (a directed one after `to_undirected()`, its
/// self-loops removed first, as networkx asks): the largest subgraph in which every edge lies
/// in at least k - 2 of the subgraph's triangles (Cohen, "Trusses: Cohesive Subgraphs for Social
/// Network Analysis"), with the vertices that keep at least one edge. For k = 2 that is every
/// edge and every vertex that has one.
///
/// Peeling, with every edge held once in L, oriented from the endpoint of larger (degree, id) to
/// the smaller (an acyclic orientation, as triangle counting orders by degree):
///   - support S(i, j) = |N(i) ∩ N(j)|, counted once for every edge as the masked products
///     S<L> = L plus.pair L^T + L plus.pair L + L^T plus.pair L (the third vertex of a triangle
///     below, between or above the edge's two; U·U with U = L + L^T adds a fourth term that
///     counts directed 3-cycles, of which an acyclic orientation has none). A hub's row of L^T
///     holds only its neighbours of larger degree, so these lists are short.
///   - every edge with support < k - 2 is removed at once; the edges that stay and share an
///     endpoint with a removed one (in a triangle) lose U'·D + D·U triangles (U, U' the
///     symmetric edge sets before and after, D the removed edges; two products masked by those
///     edges), and the rounds repeat until none is removed.
/// The result does not depend on the order of removals: the k-truss is the union of all
/// subgraphs with the property.
///
/// @param A        a square graph of any value type
/// @param k        the order of the truss, at least 2 (networkx accepts smaller k and returns
///                 the same graph as for k = 2; here they are refused as a likely mistake)
/// @param options  truss numbers, device, forced kernel, cancellation
/// @throws InvalidArgument on a non-square graph, on k < 2, or when the undirected graph has
///         more entries than the index type holds; Cancelled; Unsupported for Device::Cuda
///         without a device; OutOfMemory as the ops.
template <class I, class V>
KTrussResult<I> k_truss(const Graph<I, V>& A, std::int64_t k, const KTrussOptions& options = {});

}  // namespace spindle
