// SPDX-License-Identifier: Apache-2.0
/// @file betweenness.cpp
/// @brief Batched Brandes betweenness centrality over the ops/ API (see betweenness.hpp).

#include "spindle/algorithms/betweenness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/dense.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/gemm.hpp"
#include "spindle/ops/mxm.hpp"

namespace spindle {
namespace {

using M = DenseMatrix<double>;

std::vector<std::int64_t> pick_sources(const BetweennessOptions& o, std::int64_t n, bool& sampled) {
  sampled = false;
  if (!o.sources.empty()) {
    std::vector<char> seen(static_cast<std::size_t>(n), 0);
    for (auto s : o.sources) {
      if (s < 0 || s >= n) {
        throw InvalidArgument("betweenness_centrality: source " + std::to_string(s) +
                              " is outside [0, " + std::to_string(n) + ")");
      }
      if (seen[static_cast<std::size_t>(s)]++) {
        throw InvalidArgument("betweenness_centrality: source " + std::to_string(s) +
                              " is given twice");
      }
    }
    sampled = true;
    return o.sources;
  }
  if (o.k < -1 || o.k > n) {
    throw InvalidArgument("betweenness_centrality: k must be in [0, n] = [0, " + std::to_string(n) +
                          "] (or -1 for every vertex), got " + std::to_string(o.k));
  }
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), std::int64_t{0});
  // networkx: k == n is the exact computation.
  if (o.k < 0 || o.k == n) return all;
  std::mt19937_64 gen(o.seed);
  for (std::int64_t i = 0; i < o.k; ++i) {
    std::uniform_int_distribution<std::int64_t> pick(i, n - 1);
    std::swap(all[static_cast<std::size_t>(i)], all[static_cast<std::size_t>(pick(gen))]);
  }
  all.resize(static_cast<std::size_t>(o.k));
  sampled = true;
  return all;
}

// out = [x == d] elementwise (x holds small integers exactly).
void equals(M& out, const M& x, double d, const Descriptor& desc) {
  apply(out, Accum::none(), Unary<double>::plus(-d), x, desc);
  apply(out, Accum::none(), Unary<double>::make(UnaryOp::IsNonzero), out, desc);
  apply(out, Accum::none(), Unary<double>::times(-1.0), out, desc);
  apply(out, Accum::none(), Unary<double>::plus(1.0), out, desc);
}

bool any_nonzero(const M& x) {
  const std::vector<double>& v = x.storage();
  return std::any_of(v.begin(), v.end(), [](double e) { return e != 0.0; });
}

// networkx's _rescale (betweenness.py), with the sampled sources marked in `is_source`.
void rescale(std::vector<double>& bc, std::int64_t n, const BetweennessOptions& o, bool sampled,
             std::int64_t k, const std::vector<char>& is_source) {
  const double N = double(o.endpoints ? n : n - 1);
  if (N < 2) return;
  const double K = sampled ? double(k) : N;
  const double correction = o.directed ? 1.0 : 2.0;
  if (!sampled || o.endpoints) {
    const double scale = o.normalized ? 1.0 / (K * (N - 1)) : N / (K * correction);
    if (scale != 1.0) {
      for (double& b : bc) b *= scale;
    }
    return;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double scale_source = o.normalized ? (K > 1 ? 1.0 / ((K - 1) * (N - 1)) : nan)
                                           : (K > 1 ? N / ((K - 1) * correction) : nan);
  const double scale_other = o.normalized ? 1.0 / (K * (N - 1)) : N / (K * correction);
  for (std::size_t v = 0; v < bc.size(); ++v) bc[v] *= is_source[v] ? scale_source : scale_other;
}

template <class G>
BetweennessResult run(const G& A, const BetweennessOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  BetweennessResult result;
  bool sampled = false;
  result.sources = pick_sources(o, n, sampled);
  result.centrality.assign(static_cast<std::size_t>(n), 0.0);
  if (n == 0 || result.sources.empty()) return result;
  const std::int64_t batch =
      o.batch > 0 ? o.batch
                  : std::min<std::int64_t>(
                        64, std::max<std::int64_t>(1, (std::int64_t{1} << 28) / (48 * n)));
  const semiring::plus_times<double> plus_times{};
  Descriptor pull = desc;  // F' = A^T F: the frontier's out-neighbors
  pull.transpose_a = true;
  const char* who = "betweenness_centrality";
  const auto total = static_cast<std::int64_t>(result.sources.size());
  for (std::int64_t first = 0; first < total; first += batch) {
    const std::int64_t b = std::min(batch, total - first);
    ++result.batches;
    // Forward: sigma (path counts; 0 = not reached), level (-1 = not reached), frontier.
    std::vector<double> start(static_cast<std::size_t>(n * b), 0.0);
    std::vector<double> start_level(static_cast<std::size_t>(n * b), -1.0);
    for (std::int64_t j = 0; j < b; ++j) {
      const auto s = result.sources[static_cast<std::size_t>(first + j)];
      start[static_cast<std::size_t>(s * b + j)] = 1.0;
      start_level[static_cast<std::size_t>(s * b + j)] = 0.0;
    }
    M sigma(n, b, start);
    M frontier(n, b, std::move(start));
    M level(n, b, std::move(start_level));
    M t(n, b), u(n, b);
    std::int64_t depth = 0;
    for (;;) {
      detail::check_cancel(o.cancel, who);
      mxm(t, Accum::none(), plus_times, A, frontier, pull);
      // u = 1 where not reached yet.
      apply(u, Accum::none(), Unary<double>::make(UnaryOp::IsNonzero), sigma, desc);
      apply(u, Accum::none(), Unary<double>::plus(-1.0), u, desc);
      apply(u, Accum::none(), Unary<double>::times(-1.0), u, desc);
      ewise(frontier, Accum::none(), BinaryOp::Times, t, u, desc);
      if (!any_nonzero(frontier)) break;
      ++depth;
      ewise(sigma, Accum::plus(), BinaryOp::First, frontier, frontier, desc);
      // level += (depth + 1) where the new frontier is: -1 becomes depth.
      apply(u, Accum::none(), Unary<double>::make(UnaryOp::IsNonzero), frontier, desc);
      apply(level, Accum::plus(), Unary<double>::times(double(depth + 1)), u, desc);
    }
    // Backward: delta(v) += sigma(v) * sum over successors w one level down of
    // (1 + delta(w)) / sigma(w). The sources (level 0) get no dependency.
    M delta(n, b, 0.0);
    M inv_sigma(n, b);
    apply(inv_sigma, Accum::none(), Unary<double>::make(UnaryOp::ScalarDiv, 1.0), sigma, desc);
    M w(n, b), eq(n, b);
    for (std::int64_t d = depth; d >= 2; --d) {
      detail::check_cancel(o.cancel, who);
      equals(eq, level, double(d), desc);
      apply(w, Accum::none(), Unary<double>::plus(1.0), delta, desc);
      // In place through the accumulator: w *= inv_sigma, w *= [level = d].
      ewise(w, Accum::with(BinaryOp::Times), BinaryOp::First, inv_sigma, inv_sigma, desc);
      ewise(w, Accum::with(BinaryOp::Times), BinaryOp::First, eq, eq, desc);
      mxm(t, Accum::none(), plus_times, A, w, desc);
      equals(eq, level, double(d - 1), desc);
      ewise(t, Accum::with(BinaryOp::Times), BinaryOp::First, sigma, sigma, desc);
      ewise(delta, Accum::plus(), BinaryOp::Times, t, eq, desc);
    }
    if (o.endpoints) {
      // Every reached v != s also counts as the end of its paths: delta + 1 where reached (the
      // source's own 1 is replaced by its reach below).
      apply(u, Accum::none(), Unary<double>::make(UnaryOp::IsNonzero), sigma, desc);
      ewise(delta, Accum::plus(), BinaryOp::First, u, u, desc);
    }
    M ones(b, 1, 1.0), sums(n, 1);
    gemm(sums, delta, ones, desc.device);
    const std::vector<double>& sv = sums.storage();
    for (std::int64_t v = 0; v < n; ++v) result.centrality[static_cast<std::size_t>(v)] += sv[v];
    if (o.endpoints) {
      // Column sums of the reach indicator: the vertices each source reaches (itself included).
      M ones_row(1, n, 1.0), reach(1, b);
      gemm(reach, ones_row, u, desc.device);
      const std::vector<double>& rv = reach.storage();
      for (std::int64_t j = 0; j < b; ++j) {
        const auto s = result.sources[static_cast<std::size_t>(first + j)];
        // Replace the +1 given to the source above with its reach - 1 (networkx: len(S) - 1).
        result.centrality[static_cast<std::size_t>(s)] += rv[j] - 2.0;
      }
    }
  }
  std::vector<char> is_source(static_cast<std::size_t>(n), 0);
  if (sampled) {
    for (auto s : result.sources) is_source[static_cast<std::size_t>(s)] = 1;
  }
  rescale(result.centrality, n, o, sampled, total, is_source);
  return result;
}

}  // namespace

template <class I, class V>
BetweennessResult betweenness_centrality(const Graph<I, V>& A, const BetweennessOptions& options) {
  detail::require_square(A, "betweenness_centrality");
  if (options.batch < 0) {
    throw InvalidArgument("betweenness_centrality: batch must be >= 0, got " +
                          std::to_string(options.batch));
  }
  const Descriptor desc =
      detail::algorithm_descriptor(options.device, MxvKernel::Auto, options.mxm_kernel);
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return run(G, options, desc); });
}

#define SPINDLE_BC_INST(I, V)                                                 \
  template BetweennessResult betweenness_centrality<I, V>(const Graph<I, V>&, \
                                                          const BetweennessOptions&);
SPINDLE_BC_INST(std::int32_t, float)
SPINDLE_BC_INST(std::int32_t, double)
SPINDLE_BC_INST(std::int32_t, Pattern)
SPINDLE_BC_INST(std::int64_t, float)
SPINDLE_BC_INST(std::int64_t, double)
SPINDLE_BC_INST(std::int64_t, Pattern)
#undef SPINDLE_BC_INST

}  // namespace spindle
