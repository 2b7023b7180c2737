// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file rank.hpp
/// @brief Fused vector steps of iterative methods: random-walk iterations (PageRank, personalized
/// PageRank) and power iteration. The per-iteration vector work around the one product, in calls
/// that keep every scalar on the device and read back only what the stop test needs.
///
/// One damped step x -> x_new over a graph A (row i -> its out-neighbours) is
///   scale_and_leak(w, leak, x, scale)          w = x .* scale, leak(0) = sum of x where scale is 0
///   vxm(x_new, {}, none, plus_times, w, A)     x_new = A^T w
///   r = teleport_and_residual(x_new, x, leak, t0, t1, p)
///                                              x_new(i) += (t0 + t1 * leak(0)) * p(i)  (p = 1 if
///                                              none), r = sum |x_new(i) - x(i)|
/// With scale = alpha / outdegree (0 at dangling vertices), t0 = (1 - alpha) / n and
/// t1 = alpha / n this is the classic PageRank step with dangling rank redistributed uniformly.
///
/// A loop can also fuse each step's end with the next step's start:
///   scale_and_leak(w, leak, x, scale)                          once, before the first step
///   vxm(x_new, {}, none, plus_times, w, A)
///   r = teleport_residual_and_scale(x_new, x, leak, t0, t1, p, w, scale)
/// where the last call is teleport_and_residual followed by scale_and_leak(w, leak, x_new, scale)
/// in one pass, and hands the residual back as a PendingScalar: the loop queues its next step
/// before it reads this one's residual, so the device never waits for the host's stop test.
///
/// On CUDA each call is one or two element-wise kernels, each followed by a small finish kernel;
/// nothing goes to the host but the scalars the stop test reads. On the CPU the same values are
/// computed with the fixed-block summation of reduce(), so results are deterministic for any thread
/// count on both backends, and the fused call gives the same bits as the two calls it replaces.

#include <functional>
#include <optional>
#include <utility>

#include "spindle/descriptor.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// A scalar a backend has computed or queued: get() returns it, waiting (once) for the work that
/// produces it and for nothing queued after that work. On the CPU it is known at once (ready()).
template <class T>
class PendingScalar {
 public:
  /// No scalar (valid() is false; get() throws std::bad_function_call).
  PendingScalar() = default;
  /// A value known already.
  explicit PendingScalar(T value) : value_(value) {}
  /// A value that wait() delivers: the first get() calls it (again on the next get() if it threw).
  explicit PendingScalar(std::function<T()> wait) : wait_(std::move(wait)) {}

  /// True when there is a scalar, known or pending.
  bool valid() const noexcept { return value_.has_value() || static_cast<bool>(wait_); }
  /// True when get() will not wait.
  bool ready() const noexcept { return value_.has_value(); }
  /// The value (the first call on a pending scalar waits for it; on CUDA it throws DeviceError when
  /// the work producing it failed). Not for concurrent use on one object.
  T get() {
    if (!value_) {
      value_ = wait_();
      wait_ = nullptr;
    }
    return *value_;
  }

 private:
  std::optional<T> value_;
  std::function<T()> wait_;
};

/// w = x .* scale (element-wise), and leak becomes a full 1-element vector holding the sum of
/// x(i) over the i with scale(i) == 0 (the mass a step would lose: dangling vertices when scale
/// is alpha / outdegree). x and scale must be full (InvalidArgument otherwise) and of the same
/// size (DimensionMismatch otherwise); w is resized to that size and becomes full. T: float or
/// double.
template <class T>
void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale,
                    const Descriptor& desc = {});

/// x_new(i) = (x_new(i) if present, else 0) + c * (teleport ? teleport(i) : 1) with
/// c = t0 + t1 * leak(0) (computed in double, then rounded to T); x_new becomes full. Returns
/// sum_i |x_new(i) - x(i)| (deterministic, as l1_distance). x, leak and teleport (when given)
/// must be full (InvalidArgument otherwise); sizes must match (DimensionMismatch otherwise).
template <class T>
T teleport_and_residual(Vector<T>& x_new, const Vector<T>& x, const Vector<T>& leak, double t0,
                        double t1, const Vector<T>* teleport = nullptr,
                        const Descriptor& desc = {});

/// teleport_and_residual(x_new, x, leak, t0, t1, teleport) and then
/// scale_and_leak(w, leak, x_new, scale) in one pass, with the same results to the bit: x_new is
/// completed (teleport plus the rank leak(0) brought in), w = x_new .* scale, leak(0) becomes the
/// rank x_new leaves on the vertices where scale is 0, and the residual sum_i |x_new(i) - x(i)|
/// comes back pending (on CUDA the kernel that sums it writes it to host memory; get() waits for
/// that kernel only). The same argument checks as the two calls, plus: scale full and of x's
/// size, w and leak distinct from each other and from every input.
template <class T>
PendingScalar<T> teleport_residual_and_scale(Vector<T>& x_new, const Vector<T>& x, Vector<T>& leak,
                                             double t0, double t1, const Vector<T>* teleport,
                                             Vector<T>& w, const Vector<T>& scale,
                                             const Descriptor& desc = {});

/// What normalize_and_distance hands back, both pending (on CUDA each is written to host memory
/// by the kernel that sums it; get() waits for that kernel only).
template <class T>
struct NormalizedStep {
  PendingScalar<T> norm;    ///< ||y||_2 before the division (0: y vanished and was left as it was)
  PendingScalar<T> change;  ///< sum_i |y(i) - x(i)| after the division

  /// True when there are scalars, known or pending.
  bool valid() const noexcept { return norm.valid() && change.valid(); }
  /// True when reading them will not wait.
  bool ready() const noexcept { return norm.ready() && change.ready(); }
};

/// Power iteration's step after its product, without a scalar on the host: y = y / ||y||_2 (y is
/// left as it is when the norm is 0), then the L1 distance to the previous iterate x. The sums are
/// deterministic (fixed tiles and order). On the CPU the results are the bits of
///   norm = sqrt(reduce(plus, y .* y)); y = y / norm; change = l1_distance(y, x).
/// y and x must be full (InvalidArgument otherwise) and of the same size (DimensionMismatch
/// otherwise), and distinct. T: float or double.
template <class T>
NormalizedStep<T> normalize_and_distance(Vector<T>& y, const Vector<T>& x,
                                         const Descriptor& desc = {});

}  // namespace spindle
