// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file katz.hpp
/// @brief Katz centrality (Katz, "A New Status Index Derived from Sociometric Analysis") with
/// networkx's parameters, iteration, stop rule and normalization, written only against the ops/
/// API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Options of katz_centrality(); the defaults are networkx.katz_centrality's.
struct KatzOptions {
  /// Attenuation factor (finite). The iteration converges when alpha < 1 / (spectral radius).
  double alpha = 0.1;
  /// The weight every vertex gets for free (networkx's scalar beta), used when `beta_per_vertex`
  /// is empty.
  double beta = 1.0;
  /// networkx's beta dictionary: one value per vertex (internal ids), or empty for the scalar.
  std::vector<double> beta_per_vertex;
  /// Iteration limit (>= 0).
  int max_iter = 1000;
  /// Stop when the L1 change between two iterates is below n·tol (networkx's rule), tol >= 0.
  double tol = 1e-6;
  /// Starting values, one per vertex (internal ids), or empty for 0 everywhere (networkx's
  /// default). Not normalized.
  std::vector<double> nstart;
  /// Divide by the Euclidean norm at the end (networkx's normalized=True; a zero vector is left
  /// as it is).
  bool normalized = true;
  /// Use edge values as weights (networkx's weight="weight"); off: every edge weighs 1
  /// (networkx's default weight=None).
  bool weighted = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation: called before every iteration, never inside an operation;
  /// returning true stops the call with spindle::Cancelled. Empty: never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of katz_centrality().
template <class T>
struct KatzResult {
  /// Centrality of every vertex (full vector, internal ids): normalized as asked when converged;
  /// the last, unnormalized iterate when not.
  Vector<T> centrality;
  /// Iterations run.
  int iterations = 0;
  /// L1 change in the last iteration.
  double residual = 0.0;
  /// Whether ‖x' − x‖₁ < n·tol was met within max_iter (an iterate that overflows stops the
  /// iteration at once, unconverged, instead of running to max_iter). networkx raises
  /// PowerIterationFailedConvergence when it is not; here the caller decides (the CLI warns, or
  /// fails with --fail-on-nonconvergence).
  bool converged = false;
};

/// Katz centrality of A (u -> v is A(u, v); a vertex gains from its in-neighbors), in precision
/// T: from x = nstart (or 0), each iteration computes x' = alpha·Aᵀx + beta (one vxm over
/// plus_times, then one apply and one ewise_add) and stops when ‖x' − x‖₁ < n·tol; the result is
/// divided by its Euclidean norm when `normalized`. The empty graph gives an empty vector.
/// @throws InvalidArgument on a non-square graph or bad options (non-finite alpha or beta,
///         beta_per_vertex / nstart of the wrong size or not finite, max_iter < 0, tol < 0);
///         Cancelled; Unsupported / DeviceError as the ops.
template <class T, class I, class V>
KatzResult<T> katz_centrality(const Graph<I, V>& A, const KatzOptions& options = {});

}  // namespace spindle
