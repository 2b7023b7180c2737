// SPDX-License-Identifier: Apache-2.0
/// @file triangles.cpp
/// @brief Triangle counts and clustering coefficients by masked sparse x sparse mxm.

#include "spindle/algorithms/triangles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/degree_order.hpp"
#include "algorithms/src/undirected_pattern.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/error.hpp"
#include "spindle/matrix_mask.hpp"
#include "spindle/ops/mxm_sparse.hpp"
#include "spindle/semiring.hpp"

namespace spindle {
namespace {

/// Relabel by degree when the largest degree exceeds this many times the mean: on such skewed
/// (power-law) graphs the relabelling costs a sort of the vertices and a pass over the edges and
/// saves most of the products (symmetrized R-MAT 18: see docs/design/mxm_sparse.md); on regular
/// graphs it saves little.
constexpr double kRelabelSkew = 8.0;

}  // namespace

template <class I, class V>
TriangleResult triangles(const Graph<I, V>& A, const TriangleOptions& options) {
  if (!A.is_square()) {
    throw InvalidArgument("triangles needs a square adjacency matrix, but the graph is " +
                          std::to_string(A.rows()) + " x " + std::to_string(A.cols()));
  }
  const std::int64_t n = A.rows();
  const bool per_vertex = options.per_vertex || options.clustering;
  Descriptor desc;
  desc.device = options.device;
  desc.replace = true;
  desc.transpose_b = true;
  desc.force(options.kernel);
  using S = semiring::plus_pair<double>;  // counts, exact below 2^53

  TriangleResult r;
  // One pass of merges counts every vertex's neighbours (its degree) and those below it; only
  // then is one of the two patterns built: the lower part L of U (the undirected graph, each
  // edge held twice), or with the degree order U itself, from which its relabelled lower part is
  // taken. (With int32 indices U may overflow where L does not: it is built only when needed.)
  const detail::UndirectedCounts<I> counts = detail::undirected_counts(A);
  const std::vector<I>& degree = counts.degree;
  std::int64_t twice_edges = 0;
  std::int64_t max_degree = 0;
#pragma omp parallel for schedule(static) reduction(+ : twice_edges) reduction(max : max_degree) \
    if (n > detail::kPrepParallelWork)
  for (std::int64_t v = 0; v < n; ++v) {
    twice_edges += degree[v];
    max_degree = std::max<std::int64_t>(max_degree, degree[v]);
  }
  r.edges = twice_edges / 2;
  const double mean = n > 0 ? 2.0 * static_cast<double>(r.edges) / static_cast<double>(n) : 0;
  std::vector<I> rank;  // empty: vertices keep their ids
  Graph<I, Pattern> Lo;
  if (mean > 0 && static_cast<double>(max_degree) > kRelabelSkew * mean) {
    rank = detail::degree_rank(degree);
    Lo = detail::degree_ordered_lower(detail::undirected_pattern(A, false, "triangles", &degree),
                                      rank);
    r.degree_ordered = true;
  } else {
    Lo = detail::undirected_pattern(A, true, "triangles", &counts.below);
  }
  // C1(c,b) for c > b: the triangles {a < b < c} with top c and middle b.
  Graph<I, double> C1;
  mxm(C1, MatrixMask::structural(Lo), S{}, Lo, Lo, desc);
  double total = 0;
  for (const double c : C1.values()) total += c;
  r.total = static_cast<std::int64_t>(total);
  if (!per_vertex) return r;

  // C3(b,a) for b > a: |Up(b) ∩ Up(a)| (Up: higher neighbours, rows of Lo^T), the triangles with
  // middle b and lowest a. Each triangle then reaches its three vertices: top and middle from
  // C1's rows and columns, lowest from C3's columns. With the degree order the Up lists are
  // short, so the dot form is cheap.
  Descriptor up = desc;
  up.transpose_a = true;
  up.transpose_b = false;
  Graph<I, double> C3;
  mxm(C3, MatrixMask::structural(Lo), S{}, Lo, Lo, up);
  std::vector<std::int64_t> t(static_cast<std::size_t>(n), 0);  // by Lo's labels
  for (std::int64_t i = 0; i < n; ++i) {
    for (I k = C1.row_ptr()[i]; k < C1.row_ptr()[i + 1]; ++k) {
      const auto c = static_cast<std::int64_t>(C1.values()[k]);
      t[i] += c;
      t[C1.col_idx()[k]] += c;
    }
    for (I k = C3.row_ptr()[i]; k < C3.row_ptr()[i + 1]; ++k) {
      t[C3.col_idx()[k]] += static_cast<std::int64_t>(C3.values()[k]);
    }
  }
  r.per_vertex.resize(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) r.per_vertex[v] = t[rank.empty() ? v : rank[v]];
  if (options.clustering) {
    r.clustering.assign(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t v = 0; v < n; ++v) {
      const std::int64_t d = degree[v];
      if (d >= 2 && r.per_vertex[v] > 0) {
        r.clustering[v] =
            static_cast<double>(2 * r.per_vertex[v]) / static_cast<double>(d * (d - 1));
      }
    }
  }
  return r;
}

#define SPINDLE_INSTANTIATE_TRIANGLES_(I, V) \
  template TriangleResult triangles<I, V>(const Graph<I, V>&, const TriangleOptions&);
SPINDLE_INSTANTIATE_TRIANGLES_(std::int32_t, float)
SPINDLE_INSTANTIATE_TRIANGLES_(std::int32_t, double)
SPINDLE_INSTANTIATE_TRIANGLES_(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_TRIANGLES_(std::int64_t, float)
SPINDLE_INSTANTIATE_TRIANGLES_(std::int64_t, double)
SPINDLE_INSTANTIATE_TRIANGLES_(std::int64_t, Pattern)

}  // namespace spindle
