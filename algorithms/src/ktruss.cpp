// SPDX-License-Identifier: Apache-2.0
/// @file ktruss.cpp
/// @brief The k-truss and truss numbers by repeated masked sparse x sparse mxm (see ktruss.hpp).

#include "spindle/algorithms/ktruss.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/degree_order.hpp"
#include "algorithms/src/detail_common.hpp"
#include "algorithms/src/undirected_pattern.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/error.hpp"
#include "spindle/matrix_mask.hpp"
#include "spindle/ops/mxm_sparse.hpp"
#include "spindle/semiring.hpp"

namespace spindle {
namespace {

// The current edges, each held once as an entry (i, j) of an acyclic orientation L of the graph:
// from the endpoint of larger (degree, id) in the input graph to the smaller one. Each edge has
// its support (the triangles of the current edges through it) and, for truss numbers, its
// position in the first edge set.
template <class I>
struct OrientedEdges {
  std::int64_t n = 0;
  std::vector<I> rp;
  std::vector<I> ci;
  std::vector<I> support;
  std::vector<I> id;

  std::int64_t size() const { return static_cast<std::int64_t>(ci.size()); }
  Graph<I, Pattern> graph() const {
    return Graph<I, Pattern>(static_cast<I>(n), static_cast<I>(n), rp, ci);
  }
};

// Every edge of U (symmetric, no diagonal) once, from the endpoint of larger (degree, id) to the
// smaller: the entries (i, j) with rank[j] < rank[i] (detail::degree_rank), rows kept in order.
// Counted, then filled, in parallel by rows: the same on any number of threads.
template <class I>
OrientedEdges<I> orient_by_degree(const Graph<I, Pattern>& U, const std::vector<I>& rank) {
  OrientedEdges<I> L;
  L.n = U.rows();
  const std::int64_t n = L.n;
  const I* urp = U.row_ptr().data();
  const I* uci = U.col_idx().data();
  const I* rk = rank.data();
  const bool parallel = n + U.nnz() > detail::kPrepParallelWork;
  L.rp = detail::large_workspace<I>(static_cast<std::size_t>(n) + 1, "k_truss: oriented edges");
#pragma omp parallel for schedule(dynamic, detail::kPrepRowChunk) if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    I c = 0;
    for (I p = urp[i]; p < urp[i + 1]; ++p) c += rk[uci[p]] < rk[i] ? 1 : 0;
    L.rp[i + 1] = c;
  }
  for (std::int64_t i = 0; i < n; ++i) L.rp[i + 1] += L.rp[i];
  L.ci = detail::large_workspace<I>(static_cast<std::size_t>(L.rp[n]), "k_truss: oriented edges");
#pragma omp parallel for schedule(dynamic, detail::kPrepRowChunk) if (parallel)
  for (std::int64_t i = 0; i < n; ++i) {
    I o = L.rp[i];
    for (I p = urp[i]; p < urp[i + 1]; ++p) {
      if (rk[uci[p]] < rk[i]) L.ci[o++] = uci[p];
    }
  }
  return L;
}

// The symmetric matrix L + L^T: a pattern graph, or with `values` (one per entry of L, carried to
// both entries) a graph of doubles. Row i merges L's row i with L^T's (built in increasing row
// order, so sorted); the two never share a column.
template <class T, class I>
Graph<I, T> symmetric_of(const OrientedEdges<I>& L, const std::vector<double>* values = nullptr) {
  const std::int64_t n = L.n;
  const bool valued = values != nullptr;
  std::vector<I> trp(static_cast<std::size_t>(n) + 1, 0);
  for (const I j : L.ci) ++trp[static_cast<std::size_t>(j) + 1];
  for (std::int64_t i = 0; i < n; ++i) trp[i + 1] += trp[i];
  std::vector<I> tci(L.ci.size());
  std::vector<I> tpos(valued ? L.ci.size() : 0);  // the L entry each L^T entry came from
  {
    std::vector<I> fill(trp.begin(), trp.end() - 1);
    for (std::int64_t i = 0; i < n; ++i) {
      for (I p = L.rp[i]; p < L.rp[i + 1]; ++p) {
        const I o = fill[L.ci[p]]++;
        tci[o] = static_cast<I>(i);
        if (valued) tpos[o] = p;
      }
    }
  }
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0);
  std::vector<I> ci(2 * L.ci.size());
  std::vector<double> v(valued ? ci.size() : 0);
  I o = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    I p = L.rp[i];
    I q = trp[i];
    while (p < L.rp[i + 1] || q < trp[i + 1]) {
      if (q >= trp[i + 1] || (p < L.rp[i + 1] && L.ci[p] < tci[q])) {
        if (valued) v[o] = (*values)[p];
        ci[o++] = L.ci[p++];
      } else {
        if (valued) v[o] = (*values)[tpos[q]];
        ci[o++] = tci[q++];
      }
    }
    rp[i + 1] = o;
  }
  if constexpr (is_pattern_v<T>) {
    return Graph<I, T>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci));
  } else {
    return Graph<I, T>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci),
                       std::move(v));
  }
}

// A masked product's entries S(i, j) for the mask M ⊆ L, applied to L's supports: `set` them
// (an absent entry is 0), or subtract them. M's rows are subsets of L's and S's of M's, so each
// row is one merge.
template <class I>
void apply_to_support(OrientedEdges<I>& L, const Graph<I, Pattern>& M, const Graph<I, double>& S,
                      bool set) {
  const I* mrp = M.row_ptr().data();
  const I* mci = M.col_idx().data();
  const I* srp = S.row_ptr().data();
  const I* sci = S.col_idx().data();
  const double* sv = S.values().data();
  for (std::int64_t i = 0; i < L.n; ++i) {
    I p = L.rp[i];
    I s = srp[i];
    for (I m = mrp[i]; m < mrp[i + 1]; ++m) {
      while (L.ci[p] != mci[m]) ++p;
      const bool stored = s < srp[i + 1] && sci[s] == mci[m];
      const I x = stored ? static_cast<I>(sv[s++]) : I(0);
      L.support[p] = set ? x : static_cast<I>(L.support[p] - x);
    }
  }
}

// The support of every edge, S(i, j) = |N(i) ∩ N(j)|. With U = L + L^T, U·U = L·L^T + L·L +
// L^T·L + L^T·L^T, and on an entry (i, j) of L the last term counts directed cycles
// i -> j -> k -> i, which an acyclic orientation has none of; each of the others counts a triangle
// once, by where its third vertex k falls in the order (below both, between, above both). So
// S<L> = L·L^T + L·L + L^T·L, three masked products whose lists are short: a hub's row of L^T
// holds only its neighbours of larger degree (the reason triangle counting orders by degree too).
template <class I>
void count_support(OrientedEdges<I>& L, const Descriptor& desc,
                   const std::function<bool()>& cancel) {
  if (L.size() == 0) return;
  detail::check_cancel(cancel, "k_truss");
  const Graph<I, Pattern> Lg = L.graph();
  const MatrixMask mask = MatrixMask::structural(Lg);
  const semiring::plus_pair<double> pair;
  Graph<I, double> S;
  Descriptor below = desc;  // L·L^T: k below both
  below.transpose_b = true;
  mxm(S, mask, Accum::none(), pair, Lg, Lg, below);
  mxm(S, mask, Accum::plus(), pair, Lg, Lg, desc);  // L·L: k between
  Descriptor above = desc;                          // L^T·L: k above both
  above.transpose_a = true;
  mxm(S, mask, Accum::plus(), pair, Lg, Lg, above);
  apply_to_support(L, Lg, S, /*set=*/true);
}

// Lowers the supports after a drop. With N(v) the neighbours before it, N'(v) after and
// D(v) = N(v) \ N'(v), an edge {i, j} that stays loses
//   |N(i) ∩ N(j)| - |N'(i) ∩ N'(j)| = |N'(i) ∩ D(j)| + |D(i) ∩ N(j)|
// triangles, the entries (i, j) of U'·D + D·U for the symmetric matrices U (before), U' (after)
// and D (the dropped edges). Only edges with an endpoint in D can lose any: they form the mask,
// and D's short rows keep both products cheap. D may leave out dropped edges that were in no
// triangle, and U may still hold such edges from earlier drops: neither can close a triangle
// with an edge that stays. On return U is U'. Returns whether the products ran (the
// cancellation hook is called just before them).
template <class I>
bool update_support(OrientedEdges<I>& L, Graph<I, Pattern>& U, const OrientedEdges<I>& D,
                    const Descriptor& desc, const std::function<bool()>& cancel) {
  if (D.size() == 0) return false;
  std::vector<char> touched(static_cast<std::size_t>(L.n), 0);
  for (std::int64_t i = 0; i < D.n; ++i) {
    for (I p = D.rp[i]; p < D.rp[i + 1]; ++p) {
      touched[i] = 1;
      touched[D.ci[p]] = 1;
    }
  }
  std::vector<I> mrp(static_cast<std::size_t>(L.n) + 1, 0);
  std::vector<I> mci;
  for (std::int64_t i = 0; i < L.n; ++i) {
    for (I p = L.rp[i]; p < L.rp[i + 1]; ++p) {
      if (touched[i] != 0 || touched[L.ci[p]] != 0) mci.push_back(L.ci[p]);
    }
    mrp[i + 1] = static_cast<I>(mci.size());
  }
  Graph<I, Pattern> after = symmetric_of<Pattern>(L);
  const bool ran = !mci.empty();
  if (ran) {
    const Graph<I, Pattern> M(static_cast<I>(L.n), static_cast<I>(L.n), std::move(mrp),
                              std::move(mci));
    detail::check_cancel(cancel, "k_truss");
    const Graph<I, Pattern> Dsym = symmetric_of<Pattern>(D);
    const MatrixMask mask = MatrixMask::structural(M);
    const semiring::plus_pair<double> pair;
    Graph<I, double> S;
    mxm(S, mask, Accum::none(), pair, after, Dsym, desc);
    mxm(S, mask, Accum::plus(), pair, Dsym, U, desc);
    apply_to_support(L, M, S, /*set=*/false);
  }
  U = std::move(after);
  return ran;
}

// Removes the edges with support < t from L into D (only those in a triangle: the others change
// no support), giving each removed edge the truss number t + 1 where `numbers` is kept. Returns
// how many were removed.
template <class I>
std::int64_t drop_below(OrientedEdges<I>& L, std::int64_t t, OrientedEdges<I>& D,
                        std::vector<double>* numbers) {
  const bool ids = !L.id.empty();
  D.n = L.n;
  D.rp.assign(static_cast<std::size_t>(L.n) + 1, 0);
  D.ci.clear();
  I w = 0;
  I begin = 0;  // L.rp[i] before this row is compacted
  for (std::int64_t i = 0; i < L.n; ++i) {
    const I end = L.rp[i + 1];
    for (I p = begin; p < end; ++p) {
      if (static_cast<std::int64_t>(L.support[p]) >= t) {
        L.ci[w] = L.ci[p];
        L.support[w] = L.support[p];
        if (ids) L.id[w] = L.id[p];
        ++w;
        continue;
      }
      if (L.support[p] > 0) D.ci.push_back(L.ci[p]);
      if (numbers != nullptr) (*numbers)[L.id[p]] = static_cast<double>(t + 1);
    }
    begin = end;
    L.rp[i + 1] = w;
    D.rp[i + 1] = static_cast<I>(D.ci.size());
  }
  const std::int64_t dropped = L.size() - w;
  L.ci.resize(static_cast<std::size_t>(w));
  L.support.resize(static_cast<std::size_t>(w));
  if (ids) L.id.resize(static_cast<std::size_t>(w));
  return dropped;
}

template <class I>
void take_truss(KTrussResult<I>& r, const Graph<I, Pattern>& U) {
  r.truss = U;
  r.edges = U.nnz() / 2;
  r.vertices.clear();
  for (std::int64_t v = 0; v < U.rows(); ++v) {
    if (U.row_ptr()[v + 1] > U.row_ptr()[v]) r.vertices.push_back(static_cast<I>(v));
  }
}

}  // namespace

template <class I, class V>
KTrussResult<I> k_truss(const Graph<I, V>& A, std::int64_t k, const KTrussOptions& options) {
  detail::require_square(A, "k_truss");
  if (k < 2) {
    throw InvalidArgument("k_truss: k must be at least 2, got " + std::to_string(k) +
                          " (every edge is in the 2-truss; networkx returns that same graph for "
                          "smaller k)");
  }
  Descriptor desc;
  desc.device = options.device;
  desc.replace = true;
  desc.force(options.kernel);

  KTrussResult<I> r;
  Graph<I, Pattern> U = detail::undirected_pattern(A, false, "k_truss");
  OrientedEdges<I> L = orient_by_degree(U, detail::degree_rank(U.out_degrees()));
  L.support.assign(L.ci.size(), I(0));
  r.input_edges = L.size();
  const OrientedEdges<I> first = options.truss_numbers ? L : OrientedEdges<I>{};
  std::vector<double> numbers;
  if (options.truss_numbers) {
    L.id.resize(L.ci.size());
    for (std::size_t p = 0; p < L.id.size(); ++p) L.id[p] = static_cast<I>(p);
    numbers.assign(L.ci.size(), 0.0);
  }

  const std::int64_t target = k - 2;  // the support every edge of the k-truss has
  bool taken = false;
  if (target <= 0) {  // k = 2: every edge
    take_truss(r, U);
    taken = true;
  }
  if (!taken || options.truss_numbers) {
    // Truss numbers raise the threshold from 1 (the 3-truss).
    std::int64_t t = options.truss_numbers ? 1 : target;
    if (L.size() > 0) {
      count_support(L, desc, options.cancel);
      ++r.rounds;
    }
    OrientedEdges<I> D;
    while (true) {
      const std::int64_t dropped = drop_below(L, t, D, options.truss_numbers ? &numbers : nullptr);
      if (dropped > 0) {
        r.rounds += update_support(L, U, D, desc, options.cancel) ? 1 : 0;
        continue;
      }
      // No edge below t: with s the smallest support, L holds the k-truss for t + 2 <= k <= s + 2
      // (every k when no edge is left).
      std::int64_t s = target;
      if (L.size() > 0) s = *std::min_element(L.support.begin(), L.support.end());
      if (!taken && t <= target && (L.size() == 0 || target <= s)) {
        take_truss(r, symmetric_of<Pattern>(L));
        taken = true;
      }
      if (!options.truss_numbers || L.size() == 0) break;
      t = s + 1;
    }
  }
  if (options.truss_numbers) {
    r.truss_numbers = symmetric_of<double>(first, &numbers);
    for (const double x : numbers) {
      r.max_truss = std::max(r.max_truss, static_cast<std::int64_t>(x));
    }
  }
  return r;
}

#define SPINDLE_KTRUSS_INST(I, V) \
  template KTrussResult<I> k_truss<I, V>(const Graph<I, V>&, std::int64_t, const KTrussOptions&);
SPINDLE_KTRUSS_INST(std::int32_t, float)
SPINDLE_KTRUSS_INST(std::int32_t, double)
SPINDLE_KTRUSS_INST(std::int32_t, Pattern)
SPINDLE_KTRUSS_INST(std::int64_t, float)
SPINDLE_KTRUSS_INST(std::int64_t, double)
SPINDLE_KTRUSS_INST(std::int64_t, Pattern)
#undef SPINDLE_KTRUSS_INST

}  // namespace spindle
