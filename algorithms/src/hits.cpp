// SPDX-License-Identifier: Apache-2.0
/// @file hits.cpp
/// @brief HITS by power iteration over the ops/ API (see hits.hpp).

#include "spindle/algorithms/hits.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

void validate(const HitsOptions& o, std::int64_t n) {
  if (o.max_iter < 1) {
    throw InvalidArgument("hits: max_iter must be >= 1, got " + std::to_string(o.max_iter));
  }
  if (!(o.tol >= 0.0)) {
    throw InvalidArgument("hits: tol must be >= 0, got " + std::to_string(o.tol));
  }
  if (o.nstart.empty()) return;
  if (static_cast<std::int64_t>(o.nstart.size()) != n) {
    throw InvalidArgument("hits: nstart has " + std::to_string(o.nstart.size()) + " entries for " +
                          std::to_string(n) + " vertices");
  }
  double sum = 0.0;
  for (std::size_t i = 0; i < o.nstart.size(); ++i) {
    const double x = o.nstart[i];
    if (!std::isfinite(x) || x < 0.0) {
      throw InvalidArgument("hits: nstart of vertex " + std::to_string(i) + " is " +
                            std::to_string(x) + " (must be finite and >= 0)");
    }
    sum += x;
  }
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    throw InvalidArgument("hits: nstart must have a finite positive sum");
  }
}

// x *= 1 / op(x) (networkx multiplies by the reciprocal); returns false when op(x) is 0.
template <class T>
bool scale_by(Vector<T>& x, MonoidKind op, const Descriptor& desc) {
  const T s = reduce(op, x, desc);
  if (!(s != T(0))) return false;
  apply(x, Mask{}, Accum::none(), Unary<T>::times(T(1) / s), x, desc);
  return true;
}

template <class T, class G>
HitsResult<T> run(const G& A, const HitsOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  HitsResult<T> result;
  if (n == 0) {
    result.converged = true;
    return result;
  }
  if constexpr (!G::is_pattern) {
    Vector<T> row_min = Vector<T>::empty(n);
    reduce_rows(row_min, Mask{}, Accum::none(), MonoidKind::Min, A, desc);
    if (reduce(MonoidKind::Min, row_min, desc) < T(0)) {
      throw InvalidArgument("hits: weighted HITS needs non-negative edge values");
    }
  }
  const T uniform = static_cast<T>(1.0 / double(n));
  if (A.nnz() == 0) {
    result.hubs = Vector<T>(n, uniform);
    result.authorities = Vector<T>(n, uniform);
    result.converged = true;
    return result;
  }
  Vector<T> h;
  if (o.nstart.empty()) {
    h = Vector<T>(n, uniform);
  } else {
    double sum = 0.0;
    for (double x : o.nstart) sum += x;
    std::vector<T> v(o.nstart.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<T>(o.nstart[i] * (1.0 / sum));
    h = Vector<T>(std::move(v));
  }
  Vector<T> h_new(n, T(0));
  Vector<T> a(n, T(0));
  const semiring::plus_times<T> plus_times{};
  for (int it = 1; it <= o.max_iter; ++it) {
    detail::check_cancel(o.cancel, "hits");
    // Accumulating into zeros keeps both vectors full (vertices without edges score 0).
    assign(a, Mask{}, Accum::none(), T(0), desc);
    vxm(a, Mask{}, Accum::plus(), plus_times, h, A, desc);
    assign(h_new, Mask{}, Accum::none(), T(0), desc);
    mxv(h_new, Mask{}, Accum::plus(), plus_times, A, a, desc);
    // With an edge and a positive h the maxima are positive; a zero would mean h lost its mass,
    // which the nonnegative iteration cannot do from a positive start. nstart may be zero on
    // every vertex with out-edges, though: then the iteration has nothing to follow.
    if (!scale_by(h_new, MonoidKind::Max, desc) || !scale_by(a, MonoidKind::Max, desc)) {
      throw InvalidArgument(
          "hits: the start vector has no weight on any vertex with out-edges (the iteration "
          "vanishes)");
    }
    const double err = static_cast<double>(l1_distance(h_new, h, desc));
    std::swap(h, h_new);
    result.iterations = it;
    result.residual = err;
    if (err < o.tol) {
      result.converged = true;
      break;
    }
  }
  if (o.normalized) {
    scale_by(a, MonoidKind::Plus, desc);
    scale_by(h, MonoidKind::Plus, desc);
  }
  result.hubs = std::move(h);
  result.authorities = std::move(a);
  return result;
}

}  // namespace

template <class T, class I, class V>
HitsResult<T> hits(const Graph<I, V>& A, const HitsOptions& options) {
  detail::require_square(A, "hits");
  validate(options, A.rows());
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, options.weighted,
                                    [&](const auto& G) { return run<T>(G, options, desc); });
}

#define SPINDLE_HITS_INST(T, I, V) \
  template HitsResult<T> hits<T, I, V>(const Graph<I, V>&, const HitsOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_HITS_INST)
#undef SPINDLE_HITS_INST

}  // namespace spindle
