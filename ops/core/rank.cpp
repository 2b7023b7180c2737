// SPDX-License-Identifier: Apache-2.0
// Fused random-walk steps (spindle/ops/rank.hpp): validate -> device -> backend.
#include "spindle/ops/rank.hpp"

#include <string>

#include "ops/core/backend.hpp"
#include "ops/core/dispatch.hpp"
#include "ops/core/rank_backend.hpp"
#include "spindle/error.hpp"

namespace spindle {
namespace {

template <class T>
void require_full(const char* op, const char* name, const Vector<T>& v) {
  if (!v.is_full()) {
    throw InvalidArgument(std::string(op) + ": " + name +
                          " must be a full vector (every entry present)");
  }
}

template <class T>
void require_size(const char* op, const char* name, const Vector<T>& v, std::int64_t n,
                  const char* n_what = "x's size") {
  if (v.size() != n) {  // DimensionMismatch, like every other op's size check
    throw DimensionMismatch(std::string(op) + ": " + name + " has " + std::to_string(v.size()) +
                            " entries, expected " + std::to_string(n) + " (" + n_what + ")");
  }
}

}  // namespace

template <class T>
void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale,
                    const Descriptor& desc) {
  static_assert(std::is_floating_point_v<T>, "scale_and_leak: T must be float or double");
  require_size("scale_and_leak", "scale", scale, x.size());
  require_full("scale_and_leak", "x", x);
  require_full("scale_and_leak", "scale", scale);
  if (&w == &x || &w == &scale || &leak == &x || &leak == &scale || &leak == &w) {
    throw InvalidArgument(
        "scale_and_leak: w and leak must be distinct from each other and the inputs");
  }
  if (detail::runs_on_cuda(desc)) {
    detail::cuda::scale_and_leak(w, leak, x, scale);
  } else {
    detail::cpu::scale_and_leak(w, leak, x, scale);
  }
}

template <class T>
T teleport_and_residual(Vector<T>& x_new, const Vector<T>& x, const Vector<T>& leak, double t0,
                        double t1, const Vector<T>* teleport, const Descriptor& desc) {
  static_assert(std::is_floating_point_v<T>, "teleport_and_residual: T must be float or double");
  require_size("teleport_and_residual", "x_new", x_new, x.size());
  require_size("teleport_and_residual", "leak", leak, 1, "one scalar");
  require_full("teleport_and_residual", "x", x);
  require_full("teleport_and_residual", "leak", leak);
  if (teleport != nullptr) {
    require_size("teleport_and_residual", "teleport", *teleport, x.size());
    require_full("teleport_and_residual", "teleport", *teleport);
  }
  if (&x_new == &x || &x_new == &leak || &x_new == teleport) {
    throw InvalidArgument("teleport_and_residual: x_new must be distinct from the inputs");
  }
  if (detail::runs_on_cuda(desc)) {
    return detail::cuda::teleport_and_residual(x_new, x, leak, t0, t1, teleport);
  }
  return detail::cpu::teleport_and_residual(x_new, x, leak, t0, t1, teleport);
}

template <class T>
PendingScalar<T> teleport_residual_and_scale(Vector<T>& x_new, const Vector<T>& x, Vector<T>& leak,
                                             double t0, double t1, const Vector<T>* teleport,
                                             Vector<T>& w, const Vector<T>& scale,
                                             const Descriptor& desc) {
  static_assert(std::is_floating_point_v<T>,
                "teleport_residual_and_scale: T must be float or double");
  const char* op = "teleport_residual_and_scale";
  require_size(op, "x_new", x_new, x.size());
  require_size(op, "leak", leak, 1, "one scalar");
  require_size(op, "scale", scale, x.size());
  require_full(op, "x", x);
  require_full(op, "leak", leak);
  require_full(op, "scale", scale);
  if (teleport != nullptr) {
    require_size(op, "teleport", *teleport, x.size());
    require_full(op, "teleport", *teleport);
  }
  const void* outs[] = {&x_new, &leak, &w};
  const void* ins[] = {&x, &scale, teleport};
  bool aliased = &x_new == &leak || &x_new == &w || &leak == &w;
  for (const void* o : outs) {
    for (const void* i : ins) aliased = aliased || o == i;
  }
  if (aliased) {
    throw InvalidArgument(std::string(op) +
                          ": x_new, leak and w must be distinct from each other and the inputs");
  }
  if (detail::runs_on_cuda(desc)) {
    return detail::cuda::teleport_residual_and_scale(x_new, x, leak, t0, t1, teleport, w, scale);
  }
  return detail::cpu::teleport_residual_and_scale(x_new, x, leak, t0, t1, teleport, w, scale);
}

template <class T>
NormalizedStep<T> normalize_and_distance(Vector<T>& y, const Vector<T>& x, const Descriptor& desc) {
  static_assert(std::is_floating_point_v<T>, "normalize_and_distance: T must be float or double");
  const char* op = "normalize_and_distance";
  require_size(op, "y", y, x.size());
  require_full(op, "y", y);
  require_full(op, "x", x);
  if (&y == &x) throw InvalidArgument(std::string(op) + ": y must be distinct from x");
  if (detail::runs_on_cuda(desc)) return detail::cuda::normalize_and_distance(y, x);
  return detail::cpu::normalize_and_distance(y, x);
}

#define SPINDLE_INSTANTIATE_RANK_(T)                                                          \
  template void scale_and_leak<T>(Vector<T>&, Vector<T>&, const Vector<T>&, const Vector<T>&, \
                                  const Descriptor&);                                         \
  template T teleport_and_residual<T>(Vector<T>&, const Vector<T>&, const Vector<T>&, double, \
                                      double, const Vector<T>*, const Descriptor&);           \
  template PendingScalar<T> teleport_residual_and_scale<T>(                                   \
      Vector<T>&, const Vector<T>&, Vector<T>&, double, double, const Vector<T>*, Vector<T>&, \
      const Vector<T>&, const Descriptor&);                                                   \
  template NormalizedStep<T> normalize_and_distance<T>(Vector<T>&, const Vector<T>&,          \
                                                       const Descriptor&);
SPINDLE_INSTANTIATE_RANK_(float)
SPINDLE_INSTANTIATE_RANK_(double)
#undef SPINDLE_INSTANTIATE_RANK_

}  // namespace spindle
