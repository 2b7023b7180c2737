// SPDX-License-Identifier: Apache-2.0
/// @file power_iteration.cpp
/// @brief Power iteration and networkx eigenvector centrality over the ops/ API.

#include "spindle/algorithms/power_iteration.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "algorithms/src/detail_common.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/rank.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

/// y = M x (accumulated into y): M = A (mxv) or Aᵀ (vxm, centrality).
template <class T, class G>
void multiply_accumulate(Vector<T>& y, const G& A, const Vector<T>& x, bool transpose,
                         const Descriptor& desc) {
  const semiring::plus_times<T> s{};
  if (transpose) {
    vxm(y, Mask{}, Accum::plus(), s, x, A, desc);
  } else {
    mxv(y, Mask{}, Accum::plus(), s, A, x, desc);
  }
}

template <class T>
T dot(const Vector<T>& a, const Vector<T>& b, Vector<T>& scratch, const Descriptor& desc) {
  ewise_mult(scratch, Mask{}, Accum::none(), BinaryOp::Times, a, b, desc);
  return reduce(MonoidKind::Plus, scratch, desc);
}

template <class T, class G>
PowerIterationResult<T> run(const G& A, const PowerIterationOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  const bool transpose = o.centrality;
  const double shift = o.shift.value_or(o.centrality ? 1.0 : 0.0);
  const double threshold = o.centrality ? o.tol * double(n) : o.tol;

  PowerIterationResult<T> result;
  if (n == 0) {
    // No vertex, no eigenvector: nothing converged to anything.
    result.vanished = true;
    return result;
  }
  // networkx starts from all-ones normalized to sum 1; the plain mode from unit L2 norm.
  const double x0 = o.centrality ? 1.0 / double(n) : 1.0 / std::sqrt(double(n));
  Vector<T> x(n, static_cast<T>(x0));
  Vector<T> y(n);
  Vector<T> scratch(n);

  // Iteration k: y = s x + M x (the shift rides on the accumulator, so M + sI is never formed),
  // then one call normalizes y on the device and measures the change; its two scalars are read one
  // iteration late on CUDA (iterate_reading_late).
  detail::iterate_reading_late(
      o.max_iter,
      [&](int) {
        detail::check_cancel(o.cancel, "power_iteration");
        apply(y, Mask{}, Accum::none(), Unary<T>::times(static_cast<T>(shift)), x, desc);
        multiply_accumulate(y, A, x, transpose, desc);
        NormalizedStep<T> step = normalize_and_distance(y, x, desc);
        std::swap(x, y);  // x: this iteration's iterate; y: the previous one
        return step;
      },
      [&](int k, NormalizedStep<T>& step) {
        // networkx: `math.hypot(...) or 1`: a zero iterate was left at 0 and stays there.
        if (step.norm.get() == T(0)) result.vanished = true;
        result.last_change = static_cast<double>(step.change.get());
        result.iterations = k;
        result.converged = result.last_change < threshold || result.last_change == 0.0;
        if (o.on_iteration) o.on_iteration(k, result.last_change);
        return result.converged;
      },
      [&] { std::swap(x, y); });

  // Rayleigh quotient and residual of the final iterate with the unshifted M.
  Vector<T> mx(n, T(0));
  multiply_accumulate(mx, A, x, transpose, desc);
  const T xx = dot(x, x, scratch, desc);
  const T lambda = xx > T(0) ? dot(x, mx, scratch, desc) / xx : T(0);
  apply(y, Mask{}, Accum::none(), Unary<T>::times(lambda), x, desc);
  Vector<T> r(n);
  ewise_add(r, Mask{}, Accum::none(), BinaryOp::Minus, mx, y, desc);
  result.eigenvalue = static_cast<double>(lambda);
  result.residual = std::sqrt(static_cast<double>(dot(r, r, scratch, desc)));
  result.vector = std::move(x);
  return result;
}

void validate(const PowerIterationOptions& o) {
  if (!(o.tol >= 0.0)) {
    throw InvalidArgument("power_iteration: tol must be >= 0, got " + std::to_string(o.tol));
  }
  if (o.max_iter < 0) {
    throw InvalidArgument("power_iteration: max_iter must be >= 0, got " +
                          std::to_string(o.max_iter));
  }
  if (o.shift && !std::isfinite(*o.shift)) {
    throw InvalidArgument("power_iteration: shift must be finite");
  }
}

}  // namespace

template <class T, class I, class V>
PowerIterationResult<T> power_iteration(const Graph<I, V>& A,
                                        const PowerIterationOptions& options) {
  detail::require_square(A, "power_iteration");
  validate(options);
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, options.weighted,
                                    [&](const auto& G) { return run<T>(G, options, desc); });
}

#define SPINDLE_POWER_INST(T, I, V)                                             \
  template PowerIterationResult<T> power_iteration<T, I, V>(const Graph<I, V>&, \
                                                            const PowerIterationOptions&);
SPINDLE_ALG_INSTANTIATE_TIV(SPINDLE_POWER_INST)
#undef SPINDLE_POWER_INST

}  // namespace spindle
