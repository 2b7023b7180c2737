// SPDX-License-Identifier: Apache-2.0
/// @file sssp.cpp
/// @brief Bellman–Ford SSSP by min_plus vxm over the ops/ API, relaxing only from the vertices
/// whose distance changed in the previous round.

#include "spindle/algorithms/sssp.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

/// Number of present entries of v, through ops: ones on v's structure, summed. Exact for
/// counts up to 2^24 (float) / 2^53 (double); callers only compare with 0 or report it.
template <class T>
T count_present(const Vector<T>& v, Vector<T>& scratch, const Descriptor& desc) {
  apply(scratch, Mask{}, Accum::none(), Unary<T>::make(UnaryOp::One), v, desc);
  return reduce(MonoidKind::Plus, scratch, desc);
}

template <class T, class G>
SsspResult<T> run(const G& A, std::int64_t source, const SsspOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  const Descriptor replace = detail::with_replace(desc);
  const semiring::min_plus<T> min_plus{};

  // Distances are kept sparse (absent = +inf) so that no inf - inf ever appears in the
  // comparisons below; they become a full vector with +inf at the end. Every vector is born
  // where the ops run (on CUDA: on the device, no host array; detail::empty_vector).
  const std::vector<std::int64_t> at_source{source};
  Vector<T> dist = detail::empty_vector<T>(n, desc);
  assign(dist, Mask{}, Accum::none(), T(0), at_source, desc);
  Vector<T> frontier = detail::empty_vector<T>(n, desc);  // vertices whose distance changed
  assign(frontier, Mask{}, Accum::none(), T(0), at_source, desc);
  Vector<T> cand = detail::empty_vector<T>(n, desc);
  Vector<T> gain = detail::empty_vector<T>(n, desc);
  Vector<T> next = detail::empty_vector<T>(n, desc);
  Vector<T> scratch = detail::empty_vector<T>(n, desc);

  // Distances that are not finite. min_plus ignores a NaN candidate (docs/numerics.md), but the
  // vertex still gets the monoid's identity, +inf: such a vertex is unreachable and is dropped.
  // A sum of a finite distance and a finite weight that leaves the range of T (weights near its
  // limits, float distances past 3.4e38) is an overflow: the vertex is reachable, and passing it
  // off as unreachable (or as a negative cycle: inf - inf keeps it changing) would be a wrong
  // answer, so it is an error. d - d is 0 for every finite distance and NaN otherwise: one
  // scalar read back tells whether there is anything to look at (rarely: then on the host).
  const auto settle_non_finite = [&] {
    ewise_mult(scratch, Mask{}, Accum::none(), BinaryOp::Minus, dist, dist, desc);
    if (std::isfinite(static_cast<double>(reduce(MonoidKind::Plus, scratch, desc)))) return;
    const Vector<T>& d = std::as_const(dist);
    const auto finite_at = [&](std::int64_t v) {
      return d.present(v) && std::isfinite(static_cast<double>(d[v]));
    };
    std::vector<T> keep(static_cast<std::size_t>(n), T(1));
    for (std::int64_t v = 0; v < n; ++v) {
      if (d.present(v) && !finite_at(v)) keep[static_cast<std::size_t>(v)] = T(0);
    }
    const auto& rp = A.row_ptr();
    const auto& ci = A.col_idx();
    for (std::int64_t u = 0; u < n; ++u) {
      if (!finite_at(u)) continue;
      for (auto k = rp[u]; k < rp[u + 1]; ++k) {
        const std::int64_t v = ci[k];
        if (keep[static_cast<std::size_t>(v)] != T(0)) continue;
        double stored = 1.0;
        if constexpr (!G::is_pattern) stored = static_cast<double>(A.values()[k]);
        if (!std::isfinite(stored)) continue;  // a NaN (or infinite) weight: no path that way
        // A finite weight beyond float's range overflows as much as the sum does.
        if (std::isfinite(static_cast<double>(d[u] + static_cast<T>(stored)))) continue;
        throw InvalidArgument(
            "sssp: the shortest path length from source " + std::to_string(source) + " to vertex " +
            std::to_string(v) + " overflows " +
            (sizeof(T) == 4 ? "float (beyond 3.4e38)" : "double (beyond 1.8e308)") +
            ": the vertex is reachable but its distance cannot be represented (scale the "
            "weights down" +
            (sizeof(T) == 4 ? ", or use double precision)" : ")"));
      }
    }
    Vector<T> kept = detail::empty_vector<T>(n, desc);
    assign(kept, Mask::value(Vector<T>(std::move(keep))), Accum::none(), dist, desc);
    dist = std::move(kept);
  };

  SsspResult<T> result;
  bool fixed_point = false;
  for (std::int64_t round = 1; round <= n; ++round) {
    detail::check_cancel(o.cancel, "sssp");
    result.rounds = round;
    // cand(v) = min over changed u of dist(u) + A(u, v).
    vxm(cand, Mask{}, Accum::none(), min_plus, frontier, A, desc);
    // Newly reached vertices improve by definition...
    apply(next, Mask::structural(dist, /*complement=*/true), Accum::none(), Unary<T>{}, cand,
          replace);
    // ...reached ones where cand < dist: gain = max(dist - cand, 0) is nonzero exactly there.
    ewise_mult(gain, Mask{}, Accum::none(), BinaryOp::Minus, dist, cand, desc);
    apply(gain, Mask{}, Accum::none(), Unary<T>::make(UnaryOp::MaxScalar, T(0)), gain, desc);
    assign(next, Mask::value(gain), Accum::none(), cand, desc);
    if (!(count_present(next, scratch, desc) > T(0))) {
      fixed_point = true;
      break;
    }
    assign(dist, Mask::structural(next), Accum::none(), next, desc);
    std::swap(frontier, next);
  }
  if (n > 0) settle_non_finite();
  if (!fixed_point && n > 0) {
    // Shortest simple paths have at most n-1 edges: a change in round n means a walk keeps
    // getting shorter, i.e. a negative cycle reachable from the source.
    throw InvalidArgument("sssp: a negative-weight cycle is reachable from source " +
                          std::to_string(source) + " (distances still decrease after " +
                          std::to_string(n) + " rounds)");
  }
  result.reached = static_cast<std::int64_t>(count_present(dist, scratch, desc));
  result.distance = Vector<T>(n, std::numeric_limits<T>::infinity());
  assign(result.distance, Mask::structural(dist), Accum::none(), dist, desc);
  return result;
}

}  // namespace

template <class T, class I, class V>
SsspResult<T> sssp(const Graph<I, V>& A, std::int64_t source, const SsspOptions& options) {
  detail::require_square(A, "sssp");
  detail::require_source(source, A.rows(), "sssp");
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return run<T>(A, source, options, desc);
}

#define SPINDLE_SSSP_INST(T, I, V) \
  template SsspResult<T> sssp<T, I, V>(const Graph<I, V>&, std::int64_t, const SsspOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_SSSP_INST)
#undef SPINDLE_SSSP_INST

}  // namespace spindle
