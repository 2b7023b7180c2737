// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file semiring.hpp
/// @brief Semirings as typed traits. A semiring S over value type T provides
///   - `using value_type = T;`
///   - `static constexpr SemiringKind kind` (read by the planner; `Custom` for user semirings),
///   - `static T identity()`: the identity of `add` (the value of an empty reduction),
///   - `static T add(T, T)`: associative, commutative,
///   - `static T mul(T, T)`: applied as mul(A(i,j), u(j)) (mxv) or mul(u(i), A(i,j)) (vxm; the
///     built-in semirings run vxm through the mxv kernels as mul(A(i,j), u(i)), which is the same
///     value except for which NaN propagates, see docs/numerics.md),
///   - `static constexpr bool has_terminal` and `static T terminal()`: a value that absorbs
///     `add` (once reached, a reduction may stop early), where one exists.
/// All members are `SPINDLE_HD` so the same traits run in CUDA kernels.
///
/// User-defined semirings follow the same shape; set `kind = SemiringKind::Custom`. The
/// dispatching entry points (spindle::mxv, vxm, mxm, sddmm) take them like the built-in ones: on
/// the CPU through the templates of `spindle/ops/cpu/*_impl.hpp`, on CUDA through the generic
/// kernel templates once a `.cu` file of the program instantiates them with
/// `SPINDLE_CUDA_SEMIRING(S)` (`spindle/cuda/semiring.cuh`).
///
/// Every built-in semiring also names its monoid and multiply as run-time codes (`add_code`,
/// `mul_code`): the CUDA backend runs the built-in semirings that the build did not precompile
/// (CMake option SPINDLE_CUDA_SEMIRINGS) through one generic kernel family that takes these codes
/// (RuntimeSemiring below), as SuiteSparse:GraphBLAS keeps generic kernels beside its factory
/// kernels.

#include <cstdint>
#include <limits>
#include <type_traits>

#include "spindle/types.hpp"

namespace spindle {

/// Run-time tag of a built-in semiring.
enum class SemiringKind : std::uint8_t {
  PlusTimes,
  MinPlus,
  MaxPlus,
  MaxTimes,
  MinTimes,
  PlusMin,
  LorLand,
  AnyPair,
  PlusPair,
  MaxMin,
  Custom,
};

const char* to_string(SemiringKind k);

namespace detail {
template <class T>
SPINDLE_HD constexpr T pos_inf() {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::max();
  }
}
template <class T>
SPINDLE_HD constexpr T neg_inf() {
  if constexpr (std::numeric_limits<T>::has_infinity) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}
template <class T>
SPINDLE_HD constexpr T min_(T a, T b) {
  return b < a ? b : a;
}
template <class T>
SPINDLE_HD constexpr T max_(T a, T b) {
  return a < b ? b : a;
}
}  // namespace detail

/// A semiring's monoid as a run-time code.
enum class AddOp : std::uint8_t {
  Plus,  ///< a + b
  Min,   ///< b < a ? b : a
  Max,   ///< a < b ? b : a
  LOr,   ///< (a != 0 || b != 0) ? 1 : 0
  Any,   ///< a != 0 ? a : b (the first nonzero operand)
};

/// A semiring's multiply as a run-time code.
enum class MulOp : std::uint8_t {
  Times,  ///< a * b
  Plus,   ///< a + b
  Min,    ///< b < a ? b : a
  LAnd,   ///< (a != 0 && b != 0) ? 1 : 0
  Pair,   ///< 1
};

namespace detail {
/// The monoid `op` applied to (a, b): the same expressions as the built-in traits below.
template <class T>
SPINDLE_HD constexpr T apply_add(AddOp op, T a, T b) {
  switch (op) {
    case AddOp::Plus:
      return a + b;
    case AddOp::Min:
      return min_(a, b);
    case AddOp::Max:
      return max_(a, b);
    case AddOp::LOr:
      return (a != T(0) || b != T(0)) ? T(1) : T(0);
    case AddOp::Any:
      return a != T(0) ? a : b;
  }
  return a;
}
/// The multiply `op` applied to (a, b).
template <class T>
SPINDLE_HD constexpr T apply_mul(MulOp op, T a, T b) {
  switch (op) {
    case MulOp::Times:
      return a * b;
    case MulOp::Plus:
      return a + b;
    case MulOp::Min:
      return min_(a, b);
    case MulOp::LAnd:
      return (a != T(0) && b != T(0)) ? T(1) : T(0);
    case MulOp::Pair:
      return T(1);
  }
  return a;
}
}  // namespace detail

namespace semiring {

/// Arithmetic: add = +, mul = ×, identity 0 (SpMV, PageRank, GCN aggregation).
template <class T>
struct plus_times {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::PlusTimes;
  static constexpr AddOp add_code = AddOp::Plus;
  static constexpr MulOp mul_code = MulOp::Times;
  static constexpr bool has_terminal = false;
  SPINDLE_HD static constexpr T identity() { return T(0); }
  SPINDLE_HD static constexpr T terminal() { return T(0); }
  SPINDLE_HD static constexpr T add(T a, T b) { return a + b; }
  SPINDLE_HD static constexpr T mul(T a, T b) { return a * b; }
};

/// Tropical: add = min, mul = +, identity +inf (shortest paths).
template <class T>
struct min_plus {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::MinPlus;
  static constexpr AddOp add_code = AddOp::Min;
  static constexpr MulOp mul_code = MulOp::Plus;
  static constexpr bool has_terminal = std::numeric_limits<T>::has_infinity;
  SPINDLE_HD static constexpr T identity() { return detail::pos_inf<T>(); }
  SPINDLE_HD static constexpr T terminal() { return detail::neg_inf<T>(); }
  SPINDLE_HD static constexpr T add(T a, T b) { return detail::min_(a, b); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return a + b; }
};

/// add = max, mul = +, identity -inf (longest paths, critical path).
template <class T>
struct max_plus {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::MaxPlus;
  static constexpr AddOp add_code = AddOp::Max;
  static constexpr MulOp mul_code = MulOp::Plus;
  static constexpr bool has_terminal = std::numeric_limits<T>::has_infinity;
  SPINDLE_HD static constexpr T identity() { return detail::neg_inf<T>(); }
  SPINDLE_HD static constexpr T terminal() { return detail::pos_inf<T>(); }
  SPINDLE_HD static constexpr T add(T a, T b) { return detail::max_(a, b); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return a + b; }
};

/// add = max, mul = ×, identity -inf (most reliable path with probabilities in [0,1]).
template <class T>
struct max_times {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::MaxTimes;
  static constexpr AddOp add_code = AddOp::Max;
  static constexpr MulOp mul_code = MulOp::Times;
  static constexpr bool has_terminal = std::numeric_limits<T>::has_infinity;
  SPINDLE_HD static constexpr T identity() { return detail::neg_inf<T>(); }
  SPINDLE_HD static constexpr T terminal() { return detail::pos_inf<T>(); }
  SPINDLE_HD static constexpr T add(T a, T b) { return detail::max_(a, b); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return a * b; }
};

/// add = min, mul = ×, identity +inf.
template <class T>
struct min_times {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::MinTimes;
  static constexpr AddOp add_code = AddOp::Min;
  static constexpr MulOp mul_code = MulOp::Times;
  static constexpr bool has_terminal = std::numeric_limits<T>::has_infinity;
  SPINDLE_HD static constexpr T identity() { return detail::pos_inf<T>(); }
  SPINDLE_HD static constexpr T terminal() { return detail::neg_inf<T>(); }
  SPINDLE_HD static constexpr T add(T a, T b) { return detail::min_(a, b); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return a * b; }
};

/// add = +, mul = min, identity 0.
template <class T>
struct plus_min {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::PlusMin;
  static constexpr AddOp add_code = AddOp::Plus;
  static constexpr MulOp mul_code = MulOp::Min;
  static constexpr bool has_terminal = false;
  SPINDLE_HD static constexpr T identity() { return T(0); }
  SPINDLE_HD static constexpr T terminal() { return T(0); }
  SPINDLE_HD static constexpr T add(T a, T b) { return a + b; }
  SPINDLE_HD static constexpr T mul(T a, T b) { return detail::min_(a, b); }
};

/// Boolean: add = or, mul = and over {0, 1} stored in T, identity 0, terminal 1 (reachability).
template <class T>
struct lor_land {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::LorLand;
  static constexpr AddOp add_code = AddOp::LOr;
  static constexpr MulOp mul_code = MulOp::LAnd;
  static constexpr bool has_terminal = true;
  SPINDLE_HD static constexpr T identity() { return T(0); }
  SPINDLE_HD static constexpr T terminal() { return T(1); }
  SPINDLE_HD static constexpr T add(T a, T b) { return (a != T(0) || b != T(0)) ? T(1) : T(0); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return (a != T(0) && b != T(0)) ? T(1) : T(0); }
};

/// add = any (either operand; Spindle's kernels keep the first in column order, so results are
/// deterministic), mul = pair (always 1). For BFS on pattern graphs: "is there any edge".
template <class T>
struct any_pair {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::AnyPair;
  static constexpr AddOp add_code = AddOp::Any;
  static constexpr MulOp mul_code = MulOp::Pair;
  static constexpr bool has_terminal = true;
  SPINDLE_HD static constexpr T identity() { return T(0); }
  SPINDLE_HD static constexpr T terminal() { return T(1); }
  SPINDLE_HD static constexpr T add(T a, T b) { return a != T(0) ? a : b; }
  SPINDLE_HD static constexpr T mul(T, T) { return T(1); }
};

/// add = +, mul = pair (1): counts the stored entries that meet the input (degrees, triangles).
template <class T>
struct plus_pair {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::PlusPair;
  static constexpr AddOp add_code = AddOp::Plus;
  static constexpr MulOp mul_code = MulOp::Pair;
  static constexpr bool has_terminal = false;
  SPINDLE_HD static constexpr T identity() { return T(0); }
  SPINDLE_HD static constexpr T terminal() { return T(0); }
  SPINDLE_HD static constexpr T add(T a, T b) { return a + b; }
  SPINDLE_HD static constexpr T mul(T, T) { return T(1); }
};

/// add = max, mul = min, identity -inf (widest / bottleneck paths).
template <class T>
struct max_min {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::MaxMin;
  static constexpr AddOp add_code = AddOp::Max;
  static constexpr MulOp mul_code = MulOp::Min;
  static constexpr bool has_terminal = std::numeric_limits<T>::has_infinity;
  SPINDLE_HD static constexpr T identity() { return detail::neg_inf<T>(); }
  SPINDLE_HD static constexpr T terminal() { return detail::pos_inf<T>(); }
  SPINDLE_HD static constexpr T add(T a, T b) { return detail::max_(a, b); }
  SPINDLE_HD static constexpr T mul(T a, T b) { return detail::min_(a, b); }
};

}  // namespace semiring

/// The run-time codes of a built-in semiring.
struct SemiringCodes {
  AddOp add = AddOp::Plus;
  MulOp mul = MulOp::Times;
};

/// A semiring over T whose monoid and multiply are run-time codes, with its identity computed on
/// the host: what the generic CUDA kernels run for the built-in semirings a build did not
/// precompile. Its members are not static (a kernel takes the object by value); kernels written
/// for it call `s.add(a, b)`, `s.mul(a, b)`, which also works for the static members of a
/// semiring trait.
template <class T>
struct RuntimeSemiring {
  using value_type = T;
  static constexpr SemiringKind kind = SemiringKind::Custom;
  AddOp add_code = AddOp::Plus;
  MulOp mul_code = MulOp::Times;
  SPINDLE_HD T add(T a, T b) const { return detail::apply_add(add_code, a, b); }
  SPINDLE_HD T mul(T a, T b) const { return detail::apply_mul(mul_code, a, b); }
};

/// Calls f(S{}) for the built-in semiring over T named by `kind` (CLI and tests iterate this way).
template <class T, class F>
decltype(auto) visit_semiring(SemiringKind kind, F&& f) {
  switch (kind) {
    case SemiringKind::PlusTimes:
      return f(semiring::plus_times<T>{});
    case SemiringKind::MinPlus:
      return f(semiring::min_plus<T>{});
    case SemiringKind::MaxPlus:
      return f(semiring::max_plus<T>{});
    case SemiringKind::MaxTimes:
      return f(semiring::max_times<T>{});
    case SemiringKind::MinTimes:
      return f(semiring::min_times<T>{});
    case SemiringKind::PlusMin:
      return f(semiring::plus_min<T>{});
    case SemiringKind::LorLand:
      return f(semiring::lor_land<T>{});
    case SemiringKind::AnyPair:
      return f(semiring::any_pair<T>{});
    case SemiringKind::PlusPair:
      return f(semiring::plus_pair<T>{});
    case SemiringKind::MaxMin:
      return f(semiring::max_min<T>{});
    case SemiringKind::Custom:
      break;
  }
  throw InvalidArgument("visit_semiring: not a built-in semiring");
}

/// Every built-in semiring kind, in declaration order.
inline constexpr SemiringKind kBuiltinSemirings[] = {
    SemiringKind::PlusTimes, SemiringKind::MinPlus, SemiringKind::MaxPlus, SemiringKind::MaxTimes,
    SemiringKind::MinTimes,  SemiringKind::PlusMin, SemiringKind::LorLand, SemiringKind::AnyPair,
    SemiringKind::PlusPair,  SemiringKind::MaxMin};

/// The run-time codes of built-in semiring `kind` (the monoid and multiply its trait names).
/// @throws InvalidArgument for SemiringKind::Custom.
inline SemiringCodes semiring_codes(SemiringKind kind) {
  return visit_semiring<float>(kind, [](auto s) {
    using S = decltype(s);
    return SemiringCodes{S::add_code, S::mul_code};
  });
}

/// The RuntimeSemiring that computes what built-in semiring `kind` over T computes.
template <class T>
RuntimeSemiring<T> runtime_semiring(SemiringKind kind) {
  const SemiringCodes c = semiring_codes(kind);
  RuntimeSemiring<T> r;
  r.add_code = c.add;
  r.mul_code = c.mul;
  return r;
}

}  // namespace spindle
