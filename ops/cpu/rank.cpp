// SPDX-License-Identifier: Apache-2.0
// CPU backend: the fused random-walk steps (spindle/ops/rank.hpp). Sums use the fixed blocks and
// lanes of reduce_impl.hpp, so results are the same bits for any thread count.
#include <cmath>
#include <cstdint>

#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/rank_backend.hpp"
#include "spindle/ops/cpu/reduce_impl.hpp"
#include "spindle/ops/detail/checks.hpp"

namespace spindle::detail::cpu {

// Gets w and leak ready for host writes before either is written: each that must change size (or
// drop its bitmap) gets a replacement whose host array is made, the other has its host array made
// in place; a failed allocation leaves both as they were.
template <class T>
void ready_outputs(Vector<T>& w, std::int64_t n, Vector<T>& leak) {
  const bool new_w = w.size() != n || !w.is_full();
  const bool new_leak = leak.size() != 1 || !leak.is_full();
  Vector<T> w_new = new_w ? detail::host_made_vector<T>(n) : Vector<T>();
  Vector<T> leak_new = new_leak ? detail::host_made_vector<T>(1) : Vector<T>();
  if (!new_w) (void)w.data();
  if (!new_leak) (void)leak.data();
  if (new_w) w = std::move(w_new);
  if (new_leak) leak = std::move(leak_new);
}

template <class T>
void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale) {
  const std::int64_t n = x.size();
  host_inputs(x, scale);  // before the outputs change: a failed allocation changes nothing
  ready_outputs(w, n, leak);
  const T* xv = x.data();
  const T* sv = scale.data();
  T* wv = w.data();
  const T lost = cpu_kernels::reduce_blocks<T>(
      n, T(0), [](T a, T b) { return a + b; },
      [&](std::int64_t i0, std::int64_t i1, T& out) {
        for (std::int64_t i = i0; i < i1; ++i) wv[i] = xv[i] * sv[i];
        out = cpu_kernels::lane_sum<T>(
            i0, i1, [&](std::int64_t i) { return sv[i] == T(0) ? xv[i] : T(0); });
        return true;
      });
  leak.data()[0] = lost;
}

template <class T>
T teleport_and_residual(Vector<T>& x_new, const Vector<T>& x, const Vector<T>& leak, double t0,
                        double t1, const Vector<T>* teleport) {
  const std::int64_t n = x.size();
  const T c = static_cast<T>(t0 + t1 * static_cast<double>(leak.data()[0]));
  const T* xv = x.data();
  const T* pv = teleport != nullptr ? teleport->data() : nullptr;
  const std::uint8_t* present = x_new.bitmap_ptr();
  T* yv = x_new.data();
  auto absdiff = [](T a, T b) { return a < b ? b - a : a - b; };
  const T r = cpu_kernels::reduce_blocks<T>(
      n, T(0), [](T a, T b) { return a + b; },
      [&](std::int64_t i0, std::int64_t i1, T& out) {
        for (std::int64_t i = i0; i < i1; ++i) {
          const T y = present == nullptr || present[i] != 0 ? yv[i] : T(0);
          yv[i] = y + (pv != nullptr ? c * pv[i] : c);
        }
        out =
            cpu_kernels::lane_sum<T>(i0, i1, [&](std::int64_t i) { return absdiff(yv[i], xv[i]); });
        return true;
      });
  if (present != nullptr) x_new.bitmap().clear();  // every entry is present now
  return r;
}

template <class T>
PendingScalar<T> teleport_residual_and_scale(Vector<T>& x_new, const Vector<T>& x, Vector<T>& leak,
                                             double t0, double t1, const Vector<T>* teleport,
                                             Vector<T>& w, const Vector<T>& scale) {
  const std::int64_t n = x.size();
  const T c = static_cast<T>(t0 + t1 * static_cast<double>(leak.data()[0]));
  host_inputs(x, scale);  // before the outputs change: a failed allocation changes nothing
  if (teleport != nullptr) host_inputs(*teleport);
  (void)x_new.data();  // x_new's host array (its values are read), before w may be replaced
  ready_outputs(w, n, leak);
  const T* xv = x.data();
  const T* sv = scale.data();
  const T* pv = teleport != nullptr ? teleport->data() : nullptr;
  const std::uint8_t* present = x_new.bitmap_ptr();
  T* yv = x_new.data();
  T* wv = w.data();
  auto absdiff = [](T a, T b) { return a < b ? b - a : a - b; };
  // Both sums ride one block pass; each is combined block by block in the order the two separate
  // calls use, so the bits are theirs.
  struct Sums {
    T residual, lost;
  };
  const Sums s = cpu_kernels::reduce_blocks<Sums>(
      n, Sums{T(0), T(0)},
      [](Sums a, Sums b) {
        return Sums{a.residual + b.residual, a.lost + b.lost};
      },
      [&](std::int64_t i0, std::int64_t i1, Sums& out) {
        for (std::int64_t i = i0; i < i1; ++i) {
          const T y = present == nullptr || present[i] != 0 ? yv[i] : T(0);
          yv[i] = y + (pv != nullptr ? c * pv[i] : c);
          wv[i] = yv[i] * sv[i];
        }
        out.residual =
            cpu_kernels::lane_sum<T>(i0, i1, [&](std::int64_t i) { return absdiff(yv[i], xv[i]); });
        out.lost = cpu_kernels::lane_sum<T>(
            i0, i1, [&](std::int64_t i) { return sv[i] == T(0) ? yv[i] : T(0); });
        return true;
      });
  if (present != nullptr) x_new.bitmap().clear();  // every entry is present now
  leak.data()[0] = s.lost;
  return PendingScalar<T>(s.residual);
}

template <class T>
NormalizedStep<T> normalize_and_distance(Vector<T>& y, const Vector<T>& x) {
  const std::int64_t n = y.size();
  T* yv = y.data();
  const T* xv = x.data();
  auto plus = [](T a, T b) { return a + b; };
  // The blocks, lanes and roundings of ewise_mult (y .* y), reduce(plus), DivByScalar and
  // l1_distance on this backend, so the bits are theirs.
  const T squares =
      cpu_kernels::reduce_blocks<T>(n, T(0), plus, [&](std::int64_t i0, std::int64_t i1, T& out) {
        out = cpu_kernels::lane_sum<T>(i0, i1, [&](std::int64_t i) {
          const T sq = yv[i] * yv[i];
          return sq;
        });
        return true;
      });
  const T norm = std::sqrt(squares);
  const T d = norm == T(0) ? T(1) : norm;
  auto absdiff = [](T a, T b) { return a < b ? b - a : a - b; };
  const T change =
      cpu_kernels::reduce_blocks<T>(n, T(0), plus, [&](std::int64_t i0, std::int64_t i1, T& out) {
        for (std::int64_t i = i0; i < i1; ++i) yv[i] = yv[i] / d;
        out =
            cpu_kernels::lane_sum<T>(i0, i1, [&](std::int64_t i) { return absdiff(yv[i], xv[i]); });
        return true;
      });
  return {PendingScalar<T>(norm), PendingScalar<T>(change)};
}

SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_BACKEND)
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_STEP_BACKEND)

}  // namespace spindle::detail::cpu
