// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file rank.hpp
/// @brief Fused vector steps of random-walk iterations (PageRank, personalized PageRank): the
/// per-iteration vector work around the one vxm, in two calls that keep every scalar on the
/// device and read one back (the residual) for the stop test.
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
/// On CUDA each call is one element-wise kernel plus a one-block finish; nothing goes to the host
/// but the residual. On the CPU the same values are computed with the fixed-block summation of
/// reduce(), so results are deterministic for any thread count on both backends.

#include "spindle/descriptor.hpp"
#include "spindle/vector.hpp"

namespace spindle {

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

}  // namespace spindle
