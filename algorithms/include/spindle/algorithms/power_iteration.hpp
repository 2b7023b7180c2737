// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file power_iteration.hpp
/// @brief Dominant eigenpair by power iteration, and networkx-compatible eigenvector centrality,
/// written only against the ops/ API.

#include <functional>
#include <optional>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Options of power_iteration().
struct PowerIterationOptions {
  /// Stop when the change between two normalized iterates is below this: plain mode compares
  /// ‖x_k − x_{k−1}‖₁ < tol (L1 norm of the change of the L2-normalized iterate); centrality mode
  /// uses networkx's test Σ|x_k − x_{k−1}| < n·tol. Must be >= 0; a change of exactly 0
  /// converges even with tol 0.
  double tol = 1e-6;
  /// Iteration limit (>= 0).
  int max_iter = 100;
  /// Iterate on M + s·I instead of M. Shifting by s > 0 separates a dominant eigenvalue λ from
  /// −λ (bipartite graphs, where the plain iteration oscillates) without changing eigenvectors;
  /// the reported eigenvalue is that of M (the shift is subtracted). Unset: 0 in plain mode,
  /// 1 in centrality mode (networkx's choice).
  std::optional<double> shift;
  /// Use edge values (M built from the graph's values) instead of the pattern (every edge 1;
  /// over a valued graph, a pattern copy kept with the graph after the first such call).
  bool weighted = false;
  /// networkx.eigenvector_centrality semantics, exactly: M = Aᵀ (a vertex is central when its
  /// in-neighbors are), x_0 = 1/n (all-ones normalized to sum 1), x ← (x + Aᵀx) / ‖x + Aᵀx‖₂
  /// (‖·‖₂ = 0 is treated as 1), stop when Σ|x_k − x_{k−1}| < n·tol. networkx raises
  /// PowerIterationFailedConvergence after max_iter; here `converged` is false instead.
  /// Plain mode (false): M = A, x_0 = 1/√n, x ← (M + sI)x / ‖(M + sI)x‖₂.
  bool centrality = false;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation (progress bars, time limits, Ctrl-C in the Python bindings): called
  /// on the calling thread before every iteration, never inside an operation; returning true stops
  /// the call with spindle::Cancelled, and an exception it throws propagates unchanged. Empty:
  /// never called.
  std::function<bool()> cancel = nullptr;
  /// Called after each counted iteration with its number (1-based) and its change (the stop
  /// test's measure), e.g. for progress. Not called for dropped iterations.
  std::function<void(int, double)> on_iteration;
};

/// Result of power_iteration().
template <class T>
struct PowerIterationResult {
  /// The final iterate, L2-normalized (full vector, internal ids).
  Vector<T> vector;
  /// Rayleigh quotient xᵀMx of the final iterate (x has unit L2 norm), shift removed.
  double eigenvalue = 0.0;
  /// Iterations whose result counts (on CUDA one more may have run after the stopping one and
  /// been dropped).
  int iterations = 0;
  /// ‖Mx − λx‖₂ of the final iterate: how good an eigenpair (x, λ) is.
  double residual = 0.0;
  /// Change measured by the stop test in the last iteration (see tol).
  double last_change = 0.0;
  /// True when the stop test was met within max_iter.
  bool converged = false;
  /// True when there is no eigenvector to report: an iterate became exactly zero (M is nilpotent
  /// on the start vector and there is no shift: a graph without cycles, or without edges, in
  /// plain mode; the vector is then all zeros), or the graph has no vertices (empty vector). For
  /// a zero iterate `converged` still follows the stop test (networkx's rule), so callers must
  /// look here.
  bool vanished = false;
};

/// Dominant eigenpair of the square graph's adjacency (M = A; Aᵀ in centrality mode).
///
/// Per iteration: one mxv (plain) or vxm (centrality) with plus_times and the shift as an
/// accumulated term, then one call (spindle/ops/rank.hpp: normalize_and_distance) for the L2 norm,
/// the scaling and the L1 distance of the stop test; on CUDA all of it stays on the device and its
/// two scalars are read one iteration late (the iteration after the stopping one runs and is
/// dropped).
/// Degenerate inputs: 0 vertices gives an empty vector, `vanished`, not converged (there is no
/// eigenvector, and no iteration ran); a graph with no
/// edges keeps the uniform vector in centrality mode (shift 1; eigenvalue 0). An iterate that
/// becomes exactly 0 (nilpotent M without shift, e.g. plain mode on a graph without edges or
/// cycles) is left at 0 (networkx's `or 1` rule), reported with eigenvalue 0 and `vanished`.
///
/// @tparam T  precision (float or double)
/// @throws InvalidArgument on a non-square graph or bad options; Unsupported for Device::Cuda
///         without CUDA; DeviceError on CUDA failures.
template <class T, class I, class V>
PowerIterationResult<T> power_iteration(const Graph<I, V>& A,
                                        const PowerIterationOptions& options = {});

}  // namespace spindle
