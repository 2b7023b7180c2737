// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file pagerank.hpp
/// @brief PageRank with explicit, documented conventions (and presets reproducing networkx, the
/// GAP benchmark suite and Boost.Graph), written only against the ops/ API so the same code runs
/// on every backend.
///
/// Conventions of the input graph: A(u, v) stored means an edge u -> v. Rank flows along edges,
/// so a vertex's new rank sums the contributions of its in-neighbors (t = A^T (x ./ outdeg)).
/// Self-loops are ordinary edges (they count in the out-degree). A vertex with no out-edges
/// (or, with `weighted`, whose out-weights sum to 0) is *dangling*.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// Which PageRank convention to reproduce. For every preset the iteration starts from the uniform
/// vector 1/n and `tol` is compared with the L1 norm of the change between two iterates.
///
/// | preset   | teleport           | dangling rank                     | stop test            |
/// |----------|--------------------|-----------------------------------|----------------------|
/// | Default  | (1-α)·p            | redistributed by p                | ‖x'-x‖₁ < tol        |
/// | NetworkX | (1-α)·p            | redistributed by p                | ‖x'-x‖₁ < n·tol      |
/// | Gap      | (1-α)·p            | lost (ranks may sum to < 1)       | ‖x'-x‖₁ < tol        |
/// | Boost    | (1-α) (not over n) | lost                              | exactly max_iter (20)|
///
/// p is the personalization vector (normalized to sum 1) or uniform 1/n.
enum class PageRankPreset : std::uint8_t {
  /// x' = α·Aᵀ(x./outdeg) + (α·Σ_dangling x + 1-α)·p; ranks sum to 1.
  Default,
  /// networkx.pagerank (pagerank_scipy): as Default, but stops when ‖x'-x‖₁ < n·tol.
  NetworkX,
  /// GAP benchmark suite (pr.cc, Jacobi form): x' = (1-α)/n + α·Aᵀ(x./outdeg); dangling vertices
  /// do not redistribute their rank.
  Gap,
  /// boost::graph::page_rank: unnormalized r' = (1-α) + α·Aᵀ(r./outdeg), starting at 1/n, exactly
  /// max_iter iterations (default 20), no dangling redistribution. No personalization.
  Boost,
};

/// "default", "networkx", "gap", "boost".
const char* to_string(PageRankPreset p);

/// How pagerank() reaches its fixed point. Every method stops on the preset's test of the L1 norm
/// of G(x) - x, where G is one power step, and returns G(x) of its last iterate.
enum class PageRankMethod : std::uint8_t {
  /// The power iteration x' = G(x): the preset's exact iteration semantics (networkx parity).
  Power,
  /// Anderson acceleration of the same map (Walker and Ni, "Anderson acceleration for fixed-point
  /// iterations", SIAM J. Numer. Anal. 2011): each step takes G of the current iterate, then the
  /// combination of the last G values (up to 5 differences) whose residuals G(x) - x cancel best
  /// in the least-squares sense. The fixed point is the same vector, reached in fewer products
  /// (R-MAT 20, default tol: 8 instead of 16), at the price of about a dozen vector passes and a
  /// few scalar reads per step, which today cost about what the saved products do. It keeps 14
  /// vectors of n entries more than the power iteration. Default and NetworkX presets only (Gap
  /// and Boost define their iterates, not only their fixed point); InvalidArgument otherwise.
  Anderson,
};

/// "power", "anderson".
const char* to_string(PageRankMethod m);

/// Options of pagerank(). Unset fields take the preset's defaults.
struct PageRankOptions {
  /// Damping factor α in [0, 1]: the probability of following an edge. InvalidArgument outside.
  double alpha = 0.85;
  /// Tolerance on the L1 norm of the change between two iterates (scaled by n for the NetworkX
  /// preset; ignored by Boost). Must be >= 0; a change of exactly 0 (a fixed point) converges
  /// even with tol 0.
  double tol = 1e-6;
  /// Iteration limit; -1 means the preset's default (100; 20 for Boost, which always runs exactly
  /// this many iterations). Must be >= -1.
  int max_iter = -1;
  /// Personalization weights p(v), one per vertex (internal 0-based ids), or empty for uniform.
  /// Teleport and dangling redistribution follow p (networkx semantics). Normalized to sum 1
  /// internally; entries must be finite and >= 0 with a positive sum (InvalidArgument otherwise).
  /// Not supported by the Boost preset (InvalidArgument).
  std::vector<double> personalization;
  /// Use edge values as transition weights, normalized by the weighted out-degree (row sum). Off
  /// by default: only the structure is used (every edge weighs 1; over a valued graph, a pattern
  /// copy made at the first such call and kept with the graph, so that later calls reuse it and
  /// its transpose and device copy). Requires non-negative values (InvalidArgument). Has no
  /// effect on pattern graphs.
  bool weighted = false;
  /// The convention to reproduce (see PageRankPreset).
  PageRankPreset preset = PageRankPreset::Default;
  /// How the fixed point is reached (see PageRankMethod); the default keeps the preset's iterates.
  PageRankMethod method = PageRankMethod::Power;
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Tuning mode (spindle/cuda/tune.hpp): before iterating, time the CUDA mxv kernels once for
  /// this graph's product and run the fastest instead of the planner's pick. A few dozen SpMVs
  /// of extra work, worth it for long runs or with plan_cache. Ignored when the ops run on the
  /// CPU or mxv_kernel forces a kernel.
  bool tune = false;
  /// With tune: a file of winners keyed by a fingerprint of the graph and the device. It is read
  /// first (a hit times nothing) and the new winner is added to it. "": memory only.
  std::string plan_cache;
  /// Called after every iteration with (iteration number from 1, L1 change): progress output,
  /// per-iteration timing in benchmarks. Optional; must not throw. On CUDA the call for
  /// iteration k comes once iteration k + 1 is queued (the residual is read one iteration late,
  /// so the device never waits for the host); the calls stay in order, one per iteration kept.
  std::function<void(int, double)> on_iteration;
  /// Cooperative cancellation (progress bars, time limits, Ctrl-C in the Python bindings): called
  /// on the calling thread before every iteration, never inside an operation; returning true stops
  /// the call with spindle::Cancelled, and an exception it throws propagates unchanged. Empty:
  /// never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of pagerank().
template <class T>
struct PageRankResult {
  /// rank of every vertex (full vector, internal ids).
  Vector<T> ranks;
  /// Number of iterations (rank updates) whose result counts (on CUDA one more may have run after
  /// the stopping one and been dropped).
  int iterations = 0;
  /// Tuning mode's winner (tune_summary), empty when no tuning ran.
  std::string tuned;
  /// L1 norm of the change in the last iteration (0 when no iteration ran).
  double residual = 0.0;
  /// True when the stop test was met within max_iter (Boost: whether the last change was below
  /// tol; it runs max_iter iterations regardless). Non-convergence is not an error.
  bool converged = false;
};

/// PageRank of the square graph A, in precision T (float or double).
///
/// Per iteration (Default/NetworkX/Gap): one vxm over A (plus_times; a pattern graph unless
/// `weighted`), then one fused pass (spindle/ops/rank.hpp: teleport_residual_and_scale) that adds
/// the teleport term and the dangling rank, takes the L1 residual, and already scales the new
/// ranks by α/outdeg and sums their dangling rank for the next iteration. Only the residual goes
/// to the host, read one iteration late on CUDA.
/// Degenerate inputs: 0 vertices gives empty ranks (converged, 0 iterations); a graph with no
/// edges gives the uniform 1/n (Default/NetworkX) after one iteration.
///
/// @tparam T  precision of the ranks and of the arithmetic (float or double)
/// @param A   square graph; edge u -> v is A(u, v)
/// @param options  see PageRankOptions
/// @throws InvalidArgument on a non-square graph, bad options, a personalization vector of the
///         wrong size / negative / zero sum, negative weights with `weighted`;
///         Unsupported for Device::Cuda in a build without CUDA; DeviceError on CUDA failures.
/// Deterministic on the CPU backend (same bits for any thread count).
template <class T, class I, class V>
PageRankResult<T> pagerank(const Graph<I, V>& A, const PageRankOptions& options = {});

}  // namespace spindle
