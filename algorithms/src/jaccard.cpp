// SPDX-License-Identifier: Apache-2.0
/// @file jaccard.cpp
/// @brief Jaccard coefficients by batched SpMM over the ops/ API (see jaccard.hpp).

#include "spindle/algorithms/jaccard.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/dense.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

template <class G>
std::vector<double> run(const G& A, const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs,
                        const JaccardOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  std::vector<double> out(pairs.size(), 0.0);
  if (pairs.empty()) return out;
  Vector<double> deg(n, 0.0);
  reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, desc);
  const std::vector<double>& dv = static_cast<const Vector<double>&>(deg).values();
  // Self-loops, read once from the structure: networkx's common neighbors leave out u and v.
  std::vector<char> loop(static_cast<std::size_t>(n), 0);
  if (A.stats().self_loops > 0) {
    const auto& rp = A.row_ptr();
    const auto& ci = A.col_idx();
    for (std::int64_t u = 0; u < n; ++u) {
      for (auto k = rp[static_cast<std::size_t>(u)]; k < rp[static_cast<std::size_t>(u) + 1]; ++k) {
        if (ci[static_cast<std::size_t>(k)] == u) loop[static_cast<std::size_t>(u)] = 1;
      }
    }
  }
  // The pairs by second vertex: each batch is a run of distinct second vertices.
  std::vector<std::size_t> order(pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pairs[a].second < pairs[b].second; });
  const std::int64_t batch =
      o.batch > 0 ? o.batch
                  : std::min<std::int64_t>(
                        256, std::max<std::int64_t>(1, (std::int64_t{1} << 27) / (16 * n)));
  Descriptor transposed = desc;
  transposed.transpose_a = true;
  const semiring::plus_times<double> plus_times{};
  std::size_t next = 0;
  while (next < order.size()) {
    detail::check_cancel(o.cancel, "jaccard_coefficient");
    // Up to `batch` distinct second vertices, and the pairs that use them.
    std::vector<std::int64_t> cols;
    std::size_t end = next;
    while (end < order.size()) {
      const std::int64_t v = pairs[order[end]].second;
      if (cols.empty() || cols.back() != v) {
        if (static_cast<std::int64_t>(cols.size()) == batch) break;
        cols.push_back(v);
      }
      ++end;
    }
    const auto b = static_cast<std::int64_t>(cols.size());
    std::vector<double> one_hot(static_cast<std::size_t>(n * b), 0.0);
    for (std::int64_t k = 0; k < b; ++k) one_hot[static_cast<std::size_t>(cols[k] * b + k)] = 1.0;
    const DenseMatrix<double> e(n, b, std::move(one_hot));
    DenseMatrix<double> x(n, b), c(n, b);
    mxm(x, Accum::none(), plus_times, A, e, transposed);  // x(:, k): N(v_k)'s indicator
    mxm(c, Accum::none(), plus_times, A, x, desc);        // c(u, k) = |N(u) ∩ N(v_k)|
    const std::vector<double>& cv = c.storage();
    const std::vector<double>& xv = x.storage();
    std::size_t k = 0;
    for (std::size_t i = next; i < end; ++i) {
      const auto [u, v] = pairs[order[i]];
      while (cols[k] != v) ++k;
      const double c_uv = cv[static_cast<std::size_t>(u * b) + k];
      // networkx counts N(u) ∩ N(v) without u and v themselves: u is in it when u has a
      // self-loop and u ~ v, v when u ~ v and v has a self-loop (x(u, k) = [u ~ v]); for u == v
      // only u itself is dropped.
      const double adjacent = xv[static_cast<std::size_t>(u * b) + k];
      const double common = u == v ? c_uv - adjacent
                                   : c_uv - adjacent * (double(loop[static_cast<std::size_t>(u)]) +
                                                        double(loop[static_cast<std::size_t>(v)]));
      const double uni = dv[static_cast<std::size_t>(u)] + dv[static_cast<std::size_t>(v)] - c_uv;
      out[order[i]] = uni > 0 ? common / uni : 0.0;
    }
    next = end;
  }
  return out;
}

}  // namespace

template <class I, class V>
std::vector<double> jaccard_coefficient(
    const Graph<I, V>& A, const std::vector<std::pair<std::int64_t, std::int64_t>>& pairs,
    const JaccardOptions& options) {
  detail::require_square(A, "jaccard_coefficient");
  if (options.batch < 0) {
    throw InvalidArgument("jaccard_coefficient: batch must be >= 0, got " +
                          std::to_string(options.batch));
  }
  const std::int64_t n = A.rows();
  for (const auto& [u, v] : pairs) {
    if (u < 0 || u >= n || v < 0 || v >= n) {
      throw IndexOutOfBounds("jaccard_coefficient: pair (" + std::to_string(u) + ", " +
                             std::to_string(v) + ") has a vertex outside [0, " + std::to_string(n) +
                             ")");
    }
  }
  if (!detail::symmetric_structure(A)) {
    throw InvalidArgument(
        "jaccard_coefficient: the graph is not symmetric; Jaccard coefficients are defined on "
        "undirected graphs (store each edge in both directions)");
  }
  const Descriptor desc = detail::algorithm_descriptor(options.device);
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return run(G, pairs, options, desc); });
}

template <class I, class V>
std::vector<std::pair<std::int64_t, std::int64_t>> edge_pairs(const Graph<I, V>& A) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const auto& rp = A.row_ptr();
  const auto& ci = A.col_idx();
  for (std::int64_t u = 0; u < A.rows(); ++u) {
    for (auto k = rp[static_cast<std::size_t>(u)]; k < rp[static_cast<std::size_t>(u) + 1]; ++k) {
      const std::int64_t v = ci[static_cast<std::size_t>(k)];
      if (u < v) out.emplace_back(u, v);
    }
  }
  return out;
}

#define SPINDLE_JACCARD_INST(I, V)                                                   \
  template std::vector<double> jaccard_coefficient<I, V>(                            \
      const Graph<I, V>&, const std::vector<std::pair<std::int64_t, std::int64_t>>&, \
      const JaccardOptions&);                                                        \
  template std::vector<std::pair<std::int64_t, std::int64_t>> edge_pairs<I, V>(const Graph<I, V>&);
SPINDLE_JACCARD_INST(std::int32_t, float)
SPINDLE_JACCARD_INST(std::int32_t, double)
SPINDLE_JACCARD_INST(std::int32_t, Pattern)
SPINDLE_JACCARD_INST(std::int64_t, float)
SPINDLE_JACCARD_INST(std::int64_t, double)
SPINDLE_JACCARD_INST(std::int64_t, Pattern)
#undef SPINDLE_JACCARD_INST

}  // namespace spindle
