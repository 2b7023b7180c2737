// SPDX-License-Identifier: Apache-2.0
/// @file katz.cpp
/// @brief Katz centrality over the ops/ API (see katz.hpp).

#include "spindle/algorithms/katz.hpp"

#include <cmath>
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

void check_vector(const std::vector<double>& v, std::int64_t n, const char* what) {
  if (v.empty()) return;
  if (static_cast<std::int64_t>(v.size()) != n) {
    throw InvalidArgument(std::string("katz_centrality: ") + what + " has " +
                          std::to_string(v.size()) + " entries for " + std::to_string(n) +
                          " vertices");
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      throw InvalidArgument(std::string("katz_centrality: ") + what + " of vertex " +
                            std::to_string(i) + " is not finite");
    }
  }
}

void validate(const KatzOptions& o, std::int64_t n) {
  if (!std::isfinite(o.alpha)) throw InvalidArgument("katz_centrality: alpha must be finite");
  if (!std::isfinite(o.beta)) throw InvalidArgument("katz_centrality: beta must be finite");
  if (o.max_iter < 0) {
    throw InvalidArgument("katz_centrality: max_iter must be >= 0, got " +
                          std::to_string(o.max_iter));
  }
  if (!(o.tol >= 0.0)) {
    throw InvalidArgument("katz_centrality: tol must be >= 0, got " + std::to_string(o.tol));
  }
  check_vector(o.beta_per_vertex, n, "beta_per_vertex");
  check_vector(o.nstart, n, "nstart");
}

template <class T>
Vector<T> full_from(const std::vector<double>& v, std::int64_t n, double fill) {
  if (v.empty()) return Vector<T>(n, static_cast<T>(fill));
  std::vector<T> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<T>(v[i]);
  return Vector<T>(std::move(out));
}

template <class T, class G>
KatzResult<T> run(const G& A, const KatzOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  KatzResult<T> result;
  if (n == 0) {
    result.converged = true;
    return result;
  }
  const Vector<T> beta = full_from<T>(o.beta_per_vertex, n, o.beta);
  Vector<T> x = full_from<T>(o.nstart, n, 0.0);
  Vector<T> x_new(n, T(0));
  const semiring::plus_times<T> plus_times{};
  const double threshold = double(n) * o.tol;
  for (int it = 1; it <= o.max_iter; ++it) {
    detail::check_cancel(o.cancel, "katz_centrality");
    // x' = alpha * (A^T x) + beta; accumulating into zeros keeps x' full.
    assign(x_new, Mask{}, Accum::none(), T(0), desc);
    vxm(x_new, Mask{}, Accum::plus(), plus_times, x, A, desc);
    apply(x_new, Mask{}, Accum::none(), Unary<T>::times(static_cast<T>(o.alpha)), x_new, desc);
    ewise_add(x_new, Mask{}, Accum::none(), BinaryOp::Plus, x_new, beta, desc);
    const double err = static_cast<double>(l1_distance(x_new, x, desc));
    std::swap(x, x_new);
    result.iterations = it;
    result.residual = err;
    if (err < threshold) {
      result.converged = true;
      break;
    }
    // Overflowed (alpha far above 1 / spectral radius): no later iteration can converge.
    if (!std::isfinite(err)) break;
  }
  if (result.converged && o.normalized) {
    // 1 / ‖x‖₂; networkx leaves a zero vector as it is.
    ewise_mult(x_new, Mask{}, Accum::none(), BinaryOp::Times, x, x, desc);
    const double norm = std::sqrt(static_cast<double>(reduce(MonoidKind::Plus, x_new, desc)));
    if (norm > 0.0) {
      apply(x, Mask{}, Accum::none(), Unary<T>::times(static_cast<T>(1.0 / norm)), x, desc);
    }
  }
  result.centrality = std::move(x);
  return result;
}

}  // namespace

template <class T, class I, class V>
KatzResult<T> katz_centrality(const Graph<I, V>& A, const KatzOptions& options) {
  detail::require_square(A, "katz_centrality");
  validate(options, A.rows());
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, options.weighted,
                                    [&](const auto& G) { return run<T>(G, options, desc); });
}

#define SPINDLE_KATZ_INST(T, I, V) \
  template KatzResult<T> katz_centrality<T, I, V>(const Graph<I, V>&, const KatzOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_KATZ_INST)
#undef SPINDLE_KATZ_INST

}  // namespace spindle
