// SPDX-License-Identifier: Apache-2.0
/// @file pagerank.cpp
/// @brief PageRank over the ops/ API (see pagerank.hpp for the conventions).

#include "spindle/algorithms/pagerank.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/cuda/tune.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/rank.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {

const char* to_string(PageRankMethod m) {
  switch (m) {
    case PageRankMethod::Power:
      return "power";
    case PageRankMethod::Anderson:
      return "anderson";
  }
  return "?";
}

const char* to_string(PageRankPreset p) {
  switch (p) {
    case PageRankPreset::Default:
      return "default";
    case PageRankPreset::NetworkX:
      return "networkx";
    case PageRankPreset::Gap:
      return "gap";
    case PageRankPreset::Boost:
      return "boost";
  }
  return "?";
}

namespace {

constexpr int kDefaultMaxIter = 100;
constexpr int kBoostIterations = 20;  // boost::graph::n_iterations(20), page_rank's default

void validate(const PageRankOptions& o, std::int64_t n) {
  if (!(o.alpha >= 0.0 && o.alpha <= 1.0)) {
    throw InvalidArgument("pagerank: alpha must be in [0, 1], got " + std::to_string(o.alpha));
  }
  if (!(o.tol >= 0.0)) {
    throw InvalidArgument("pagerank: tol must be >= 0, got " + std::to_string(o.tol));
  }
  if (o.method != PageRankMethod::Power && o.preset != PageRankPreset::Default &&
      o.preset != PageRankPreset::NetworkX) {
    throw InvalidArgument(std::string("pagerank: method ") + to_string(o.method) +
                          " reaches the fixed point only; the " + to_string(o.preset) +
                          " preset defines its iterates, so it runs with method power");
  }
  if (o.max_iter < -1) {
    throw InvalidArgument("pagerank: max_iter must be >= 0 (or -1 for the preset's default), got " +
                          std::to_string(o.max_iter));
  }
  if (o.personalization.empty()) return;
  if (o.preset == PageRankPreset::Boost) {
    throw InvalidArgument(
        "pagerank: the boost preset has no personalization (Boost.Graph's page_rank has none)");
  }
  if (static_cast<std::int64_t>(o.personalization.size()) != n) {
    throw InvalidArgument("pagerank: the personalization vector has " +
                          std::to_string(o.personalization.size()) + " entries for " +
                          std::to_string(n) + " vertices");
  }
  double largest = 0.0;
  for (std::size_t i = 0; i < o.personalization.size(); ++i) {
    const double p = o.personalization[i];
    if (!std::isfinite(p) || p < 0.0) {
      throw InvalidArgument("pagerank: personalization weight of vertex " + std::to_string(i) +
                            " is " + std::to_string(p) + " (must be finite and >= 0)");
    }
    largest = std::max(largest, p);
  }
  if (!(largest > 0.0)) {
    throw InvalidArgument("pagerank: the personalization weights sum to 0");
  }
}

// p / sum(p) without overflow: finite weights whose sum exceeds the double range (two of 1e308)
// are first divided by the largest, so the sum is at most n.
std::vector<double> normalized_personalization(const std::vector<double>& p) {
  const double largest = *std::max_element(p.begin(), p.end());
  double sum = 0.0;
  for (double v : p) sum += v / largest;
  std::vector<double> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) out[i] = p[i] / largest / sum;
  return out;
}

// (M + lambda I) g = b for the small symmetric Gram matrix M (Cholesky in double, lambda a tiny
// multiple of M's trace against rounding); false when M is numerically singular.
bool solve_gram(std::vector<std::vector<double>> M, std::vector<double>& g) {
  const std::size_t m = M.size();
  double trace = 0.0;
  for (std::size_t i = 0; i < m; ++i) trace += M[i][i];
  if (!(trace > 0.0) || !std::isfinite(trace)) return false;
  for (std::size_t i = 0; i < m; ++i) M[i][i] += 1e-10 * trace;
  for (std::size_t j = 0; j < m; ++j) {
    double d = M[j][j];
    for (std::size_t k = 0; k < j; ++k) d -= M[j][k] * M[j][k];
    if (!(d > 0.0)) return false;
    M[j][j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < m; ++i) {
      double s = M[i][j];
      for (std::size_t k = 0; k < j; ++k) s -= M[i][k] * M[j][k];
      M[i][j] = s / M[j][j];
    }
  }
  for (std::size_t i = 0; i < m; ++i) {  // L y = b
    for (std::size_t k = 0; k < i; ++k) g[i] -= M[i][k] * g[k];
    g[i] /= M[i][i];
  }
  for (std::size_t i = m; i-- > 0;) {  // L^T g = y
    for (std::size_t k = i + 1; k < m; ++k) g[i] -= M[k][i] * g[k];
    g[i] /= M[i][i];
  }
  for (double v : g) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

// PageRankMethod::Anderson: x_{k+1} = G(x_k) - sum_i gamma_i dG_i, with gamma minimizing
// |f_k - sum_i gamma_i dF_i|_2, where f = G(x) - x and dF, dG hold the differences of the last
// kDepth + 1 residuals and G values. On entry x is the start vector and w, leak unset; on exit x
// holds the ranks. Every step reads its residual at once (the next step depends on it), and the
// history restarts when the residual grows (the safeguard of restarted Anderson).
template <class T, class G>
void anderson(const G& A, const PageRankOptions& o, const Descriptor& desc, int max_iter,
              double threshold, double t0, double t1, const Vector<T>* p, const Vector<T>& inv,
              Vector<T>& x, Vector<T>& x_new, Vector<T>& w, Vector<T>& leak,
              PageRankResult<T>& result) {
  constexpr std::size_t kDepth = 5;
  const std::int64_t n = A.rows();
  const semiring::plus_times<T> plus_times{};
  std::vector<Vector<T>> dF, dG;          // oldest first
  std::vector<std::vector<double>> gram;  // gram[i][j] = dF_i . dF_j
  Vector<T> f(n), f_prev(n), g_prev(n), tmp(n);
  bool have_prev = false;
  bool g_in_x_new = false;  // where G of the last iterate is, for a run that hits the limit
  double last_residual = std::numeric_limits<double>::infinity();
  auto dot = [&](const Vector<T>& a, const Vector<T>& b) {
    ewise_mult(tmp, Mask{}, Accum::none(), BinaryOp::Times, a, b, desc);
    return static_cast<double>(reduce(MonoidKind::Plus, tmp, desc));
  };
  if (max_iter > 0) scale_and_leak(w, leak, x, inv, desc);
  for (int k = 1; k <= max_iter; ++k) {
    detail::check_cancel(o.cancel, "pagerank");
    // x_new = G(x), with w and leak already computed from it (used when no step is combined).
    vxm(x_new, Mask{}, Accum::none(), plus_times, w, A, desc);
    const double residual = static_cast<double>(
        teleport_residual_and_scale(x_new, x, leak, t0, t1, p, w, inv, desc).get());
    result.residual = residual;
    result.iterations = k;
    if (o.on_iteration) o.on_iteration(k, residual);
    result.converged = residual < threshold || residual == 0.0;
    if (result.converged) {
      std::swap(x, x_new);
      return;
    }
    ewise_mult(f, Mask{}, Accum::none(), BinaryOp::Minus, x_new, x, desc);
    if (residual > last_residual) {  // not contracting: restart from plain power steps
      dF.clear();
      dG.clear();
      gram.clear();
      have_prev = false;
    }
    last_residual = residual;
    if (have_prev) {
      // The oldest columns' storage is reused for the new ones (no allocation per step).
      Vector<T> df(0), dg(0);
      if (dF.size() == kDepth) {
        df = std::move(dF.front());
        dg = std::move(dG.front());
        dF.erase(dF.begin());
        dG.erase(dG.begin());
        gram.erase(gram.begin());
        for (auto& row : gram) row.erase(row.begin());
      } else {
        df = Vector<T>(n);
        dg = Vector<T>(n);
      }
      ewise_mult(df, Mask{}, Accum::none(), BinaryOp::Minus, f, f_prev, desc);
      ewise_mult(dg, Mask{}, Accum::none(), BinaryOp::Minus, x_new, g_prev, desc);
      dF.push_back(std::move(df));
      dG.push_back(std::move(dg));
      const std::size_t m = dF.size();
      for (auto& row : gram) row.push_back(0.0);
      gram.emplace_back(m, 0.0);
      for (std::size_t i = 0; i < m; ++i) {
        gram[m - 1][i] = gram[i][m - 1] = dot(dF[m - 1], dF[i]);
      }
    }
    std::swap(f_prev, f);
    g_prev = x_new;
    have_prev = true;
    std::vector<double> gamma(dF.size());
    for (std::size_t i = 0; i < dF.size(); ++i) gamma[i] = dot(dF[i], f_prev);
    if (dF.empty() || !solve_gram(gram, gamma)) {
      std::swap(x, x_new);  // a plain power step: w and leak are x_new's already
      g_in_x_new = false;
      continue;
    }
    x = x_new;
    for (std::size_t i = 0; i < dG.size(); ++i) {
      apply(x, Mask{}, Accum::plus(),
            Unary<T>::make(UnaryOp::TimesScalar, static_cast<T>(-gamma[i])), dG[i], desc);
    }
    scale_and_leak(w, leak, x, inv, desc);
    g_in_x_new = true;
  }
  // The limit reached: the ranks are G of the last iterate, as the power iteration's are.
  if (g_in_x_new) std::swap(x, x_new);
}

template <class T, class I, class G>
PageRankResult<T> run(const G& A, const PageRankOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  const PageRankPreset preset = o.preset;
  const int max_iter = o.max_iter >= 0
                           ? o.max_iter
                           : (preset == PageRankPreset::Boost ? kBoostIterations : kDefaultMaxIter);
  const T alpha = static_cast<T>(o.alpha);
  const bool redistribute = preset == PageRankPreset::Default || preset == PageRankPreset::NetworkX;
  const double threshold = preset == PageRankPreset::NetworkX ? o.tol * double(n) : o.tol;
  const bool personalized = !o.personalization.empty();

  PageRankResult<T> result;
  if (n == 0) {
    result.converged = true;
    return result;
  }

  // Out-degree (weighted: out-weight), 0 for rows without entries: accumulating into zeros keeps
  // deg, inv and w full vectors, so the vxm below takes the kernels' dense-input path. Constant
  // vectors like these zeros are filled where they are first used (on CUDA on the device: no
  // host array, no upload; spindle/vector.hpp).
  Vector<T> deg(n, T(0));
  reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, desc);
  if constexpr (!G::is_pattern) {
    Vector<T> row_min = Vector<T>::empty(n);
    reduce_rows(row_min, Mask{}, Accum::none(), MonoidKind::Min, A, desc);
    const T smallest = reduce(MonoidKind::Min, row_min, desc);
    if (smallest < T(0)) {
      throw InvalidArgument("pagerank: weighted PageRank needs non-negative edge values, found " +
                            std::to_string(static_cast<double>(smallest)));
    }
    // min ignores NaN (docs/numerics.md), so NaN / Inf weights show up in the out-weight sums.
    if (!std::isfinite(reduce(MonoidKind::Plus, deg, desc))) {
      throw InvalidArgument(
          "pagerank: weighted PageRank needs finite edge values, found NaN or Inf (or out-weights "
          "that overflow)");
    }
  }
  // α / outdeg: folding α into the scaling saves a pass per iteration; rows summing to 0 get 0.
  Vector<T> inv(n);
  apply(inv, Mask{}, Accum::none(), Unary<T>::make(UnaryOp::ScalarDiv, alpha), deg, desc);

  // Dangling vertices (no out-entries, or out-weights summing to 0: networkx's S == 0 test) are
  // exactly those with inv == 0 (alpha / a finite positive sum is never 0 without flush-to-zero),
  // which is how scale_and_leak finds the rank they would lose.
  Vector<T> p;
  if (personalized) {
    const std::vector<double> q = normalized_personalization(o.personalization);
    std::vector<T> pv(q.size());
    for (std::size_t i = 0; i < pv.size(); ++i) pv[i] = static_cast<T>(q[i]);
    p = Vector<T>(std::move(pv));
  }

  Vector<T> x(n, static_cast<T>(1.0 / double(n)));
  Vector<T> x_new(n);
  Vector<T> w(n);
  Vector<T> leak(1);
  const semiring::plus_times<T> plus_times{};
  // x_new(i) = (A^T w)(i) + (t0 + t1 * leak) * (p(i) or 1): teleport plus the dangling rank,
  // redistributed like the teleport (default, networkx) or dropped (gap, boost). Boost's
  // teleport is 1 - alpha per vertex (its ranks sum to n), the others' (1 - alpha) / n.
  const double per = preset == PageRankPreset::Boost || personalized ? 1.0 : 1.0 / double(n);
  const double t0 = (1.0 - o.alpha) * per;
  const double t1 = redistribute ? o.alpha * per : 0.0;

  if (o.tune && desc.device == Device::Cuda && o.mxv_kernel == MxvKernel::Auto && max_iter > 0) {
    // vxm pulls over the rows of A^T: tune that product, which the loop's calls then look up.
    TuneOptions topt;
    topt.plan_cache = o.plan_cache;
    result.tuned = tune_summary(tune_vxm<semiring::plus_times<T>>(A, topt));
  }

  if (o.method == PageRankMethod::Anderson) {
    anderson(A, o, desc, max_iter, threshold, t0, t1, personalized ? &p : nullptr, inv, x, x_new, w,
             leak, result);
    if (max_iter == 0) result.converged = false;
    result.ranks = std::move(x);
    return result;
  }

  // Iteration k: x_new = A^T w, then one fused pass completes x_new (teleport, dangling rank),
  // takes the L1 residual and already computes the next w = alpha x_new ./ outdeg and leak.
  // Nothing is read back but the residual, one iteration late on CUDA (iterate_reading_late).
  if (max_iter > 0) scale_and_leak(w, leak, x, inv, desc);
  detail::iterate_reading_late(
      max_iter,
      [&](int) {
        detail::check_cancel(o.cancel, "pagerank");
        vxm(x_new, Mask{}, Accum::none(), plus_times, w, A, desc);
        PendingScalar<T> r = teleport_residual_and_scale(x_new, x, leak, t0, t1,
                                                         personalized ? &p : nullptr, w, inv, desc);
        std::swap(x, x_new);  // x: this iteration's ranks; x_new: the previous ones
        return r;
      },
      [&](int k, PendingScalar<T>& r) {
        const double residual = static_cast<double>(r.get());
        result.residual = residual;
        result.iterations = k;
        if (o.on_iteration) o.on_iteration(k, residual);
        // An exact fixed point (residual 0) has converged whatever the tolerance, tol 0 included.
        result.converged = residual < threshold || residual == 0.0;
        return result.converged && preset != PageRankPreset::Boost;
      },
      [&] { std::swap(x, x_new); });
  if (max_iter == 0) result.converged = false;
  result.ranks = std::move(x);
  return result;
}

}  // namespace

template <class T, class I, class V>
PageRankResult<T> pagerank(const Graph<I, V>& A, const PageRankOptions& options) {
  detail::require_square(A, "pagerank");
  validate(options, A.rows());
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, options.weighted,
                                    [&](const auto& G) { return run<T, I>(G, options, desc); });
}

#define SPINDLE_PAGERANK_INST(T, I, V) \
  template PageRankResult<T> pagerank<T, I, V>(const Graph<I, V>&, const PageRankOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_PAGERANK_INST)
#undef SPINDLE_PAGERANK_INST

}  // namespace spindle
