// SPDX-License-Identifier: Apache-2.0
/// @file triangles.cpp
/// @brief Triangle counts and clustering coefficients by masked sparse x sparse mxm.

#include "spindle/algorithms/triangles.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "spindle/descriptor.hpp"
#include "spindle/error.hpp"
#include "spindle/matrix_mask.hpp"
#include "spindle/ops/mxm_sparse.hpp"
#include "spindle/semiring.hpp"

namespace spindle {
namespace {

// The pattern of A + A^T without its diagonal (`lower`: only entries j < i). Rows of A and of
// its cached transpose are both sorted, so each row is a merge.
template <class I, class V>
Graph<I, Pattern> undirected_pattern(const Graph<I, V>& A, bool lower) {
  const Graph<I, V>& At = A.transpose();
  const std::int64_t n = A.rows();
  const I* arp = A.row_ptr().data();
  const I* aci = A.col_idx().data();
  const I* trp = At.row_ptr().data();
  const I* tci = At.col_idx().data();
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0);
  std::vector<I> ci;
  ci.reserve(static_cast<std::size_t>(A.nnz()) * (lower ? 1 : 2));
  for (std::int64_t i = 0; i < n; ++i) {
    I p = arp[i];
    I q = trp[i];
    while (p < arp[i + 1] || q < trp[i + 1]) {
      I j;
      if (q >= trp[i + 1] || (p < arp[i + 1] && aci[p] < tci[q])) {
        j = aci[p++];
      } else if (p >= arp[i + 1] || tci[q] < aci[p]) {
        j = tci[q++];
      } else {
        j = aci[p++];
        ++q;
      }
      if (lower ? j >= i : j == i) {
        if (lower) break;  // sorted: nothing below the diagonal follows
        continue;
      }
      ci.push_back(j);
    }
    rp[i + 1] = static_cast<I>(ci.size());
  }
  return Graph<I, Pattern>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci));
}

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
  const Graph<I, Pattern> L = undirected_pattern(A, true);
  r.edges = L.nnz();
  Graph<I, double> C;
  if (!per_vertex) {
    mxm(C, MatrixMask::structural(L), S{}, L, L, desc);
    double total = 0;
    for (const double c : C.values()) total += c;
    r.total = static_cast<std::int64_t>(total);
    return r;
  }
  const Graph<I, Pattern> U = undirected_pattern(A, false);
  mxm(C, MatrixMask::structural(L), S{}, U, U, desc);
  std::vector<std::int64_t> twice(static_cast<std::size_t>(n), 0);  // 2 t(v)
  std::int64_t sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (I k = C.row_ptr()[i]; k < C.row_ptr()[i + 1]; ++k) {
      const auto c = static_cast<std::int64_t>(C.values()[k]);
      twice[i] += c;
      twice[C.col_idx()[k]] += c;
      sum += c;
    }
  }
  r.total = sum / 3;
  r.per_vertex.resize(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) r.per_vertex[v] = twice[v] / 2;
  if (options.clustering) {
    r.clustering.assign(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t v = 0; v < n; ++v) {
      const std::int64_t d = U.row_length(static_cast<I>(v));
      if (d >= 2 && twice[v] > 0) {
        r.clustering[v] = static_cast<double>(twice[v]) / static_cast<double>(d * (d - 1));
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
