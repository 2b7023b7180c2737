// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file hits.hpp
/// @brief HITS hubs and authorities (Kleinberg, "Authoritative Sources in a Hyperlinked
/// Environment") by power iteration with networkx's parameters and normalization, written only
/// against the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Options of hits(); the defaults are networkx.hits's.
struct HitsOptions {
  /// Iteration limit (>= 1; InvalidArgument otherwise, as networkx refuses max_iter <= 0).
  /// networkx's max_iter bounds ARPACK's iterations; here it counts power iterations, which a
  /// graph with close top singular values needs many more of (1138_bus needs more than 100).
  int max_iter = 100;
  /// Stop when the L1 change of the max-normalized hub vector is below tol (>= 0).
  double tol = 1e-8;
  /// Starting hub values, one per vertex (internal ids), or empty for uniform 1/n. Normalized to
  /// sum 1; entries must be finite and >= 0 with a positive sum (InvalidArgument otherwise).
  std::vector<double> nstart;
  /// Divide hubs and authorities by their sums at the end (networkx's normalized=True); else
  /// they are left scaled to a largest entry of 1.
  bool normalized = true;
  /// Use edge values as weights (networkx's default edge attribute "weight"); off: every edge
  /// weighs 1 (the structure only).
  bool weighted = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation: called before every iteration, never inside an operation;
  /// returning true stops the call with spindle::Cancelled. Empty: never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of hits().
template <class T>
struct HitsResult {
  /// Hub score of every vertex (full vector, internal ids).
  Vector<T> hubs;
  /// Authority score of every vertex (full vector, internal ids).
  Vector<T> authorities;
  /// Iterations run.
  int iterations = 0;
  /// L1 change of the hub vector in the last iteration.
  double residual = 0.0;
  /// Whether the stop test was met within max_iter. networkx raises
  /// PowerIterationFailedConvergence instead; here the last iterate is returned (normalized as
  /// asked) and the caller decides (the CLI warns, or fails with --fail-on-nonconvergence).
  bool converged = false;
};

/// HITS of A (u -> v is A(u, v): u is a hub pointing at the authority v), in precision T.
///
/// networkx.hits computes the dominant singular vectors of A with ARPACK; this is the power
/// iteration of networkx's own reference implementation, which converges to the same vectors:
/// from h = nstart / sum (or 1/n), each iteration computes a = Aᵀh (one vxm) and h = A a (one
/// mxv) over plus_times, scales each to a largest entry of 1, and stops when ‖h − h_last‖₁ < tol.
/// With the defaults it agrees with networkx.hits to about 1e-9 wherever the dominant singular
/// value is simple (where it is repeated, as for two disjoint copies of one graph, the answer is
/// not unique and ARPACK returns an arbitrary vector of that space).
/// A graph without edges (and the empty graph) gives hubs and authorities of 1/n each (0
/// iterations, converged).
/// @throws InvalidArgument on a non-square graph or bad options (nstart of the wrong size,
///         negative, zero sum; max_iter < 1; tol < 0; negative weights with `weighted`);
///         Cancelled; Unsupported / DeviceError as the ops.
template <class T, class I, class V>
HitsResult<T> hits(const Graph<I, V>& A, const HitsOptions& options = {});

}  // namespace spindle
