// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file functors.hpp
/// @brief Turns the run-time operator enums into compile-time constants once per call, so hot
/// element-wise loops see a fixed operator (no switch per element; they can vectorize).

#include <type_traits>

#include "spindle/operators.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cpu_kernels {

template <BinaryOp Op>
using BinaryC = std::integral_constant<BinaryOp, Op>;
template <UnaryOp Op>
using UnaryC = std::integral_constant<UnaryOp, Op>;
template <MonoidKind M>
using MonoidC = std::integral_constant<MonoidKind, M>;

/// Calls f(BinaryC<op>{}).
template <class F>
decltype(auto) with_binary(BinaryOp op, F&& f) {
  switch (op) {
    case BinaryOp::First:
      return f(BinaryC<BinaryOp::First>{});
    case BinaryOp::Second:
      return f(BinaryC<BinaryOp::Second>{});
    case BinaryOp::Plus:
      return f(BinaryC<BinaryOp::Plus>{});
    case BinaryOp::Minus:
      return f(BinaryC<BinaryOp::Minus>{});
    case BinaryOp::Times:
      return f(BinaryC<BinaryOp::Times>{});
    case BinaryOp::Div:
      return f(BinaryC<BinaryOp::Div>{});
    case BinaryOp::Min:
      return f(BinaryC<BinaryOp::Min>{});
    case BinaryOp::Max:
      return f(BinaryC<BinaryOp::Max>{});
    case BinaryOp::LOr:
      return f(BinaryC<BinaryOp::LOr>{});
    case BinaryOp::LAnd:
      return f(BinaryC<BinaryOp::LAnd>{});
    case BinaryOp::Any:
      return f(BinaryC<BinaryOp::Any>{});
    case BinaryOp::Pair:
      return f(BinaryC<BinaryOp::Pair>{});
  }
  return f(BinaryC<BinaryOp::Second>{});
}

/// Calls f(UnaryC<op>{}).
template <class F>
decltype(auto) with_unary(UnaryOp op, F&& f) {
  switch (op) {
    case UnaryOp::Identity:
      return f(UnaryC<UnaryOp::Identity>{});
    case UnaryOp::AInv:
      return f(UnaryC<UnaryOp::AInv>{});
    case UnaryOp::MInv:
      return f(UnaryC<UnaryOp::MInv>{});
    case UnaryOp::Abs:
      return f(UnaryC<UnaryOp::Abs>{});
    case UnaryOp::One:
      return f(UnaryC<UnaryOp::One>{});
    case UnaryOp::Relu:
      return f(UnaryC<UnaryOp::Relu>{});
    case UnaryOp::Sqrt:
      return f(UnaryC<UnaryOp::Sqrt>{});
    case UnaryOp::RSqrt:
      return f(UnaryC<UnaryOp::RSqrt>{});
    case UnaryOp::PlusScalar:
      return f(UnaryC<UnaryOp::PlusScalar>{});
    case UnaryOp::TimesScalar:
      return f(UnaryC<UnaryOp::TimesScalar>{});
    case UnaryOp::MinScalar:
      return f(UnaryC<UnaryOp::MinScalar>{});
    case UnaryOp::MaxScalar:
      return f(UnaryC<UnaryOp::MaxScalar>{});
    case UnaryOp::DivByScalar:
      return f(UnaryC<UnaryOp::DivByScalar>{});
    case UnaryOp::ScalarDiv:
      return f(UnaryC<UnaryOp::ScalarDiv>{});
    case UnaryOp::IsNonzero:
      return f(UnaryC<UnaryOp::IsNonzero>{});
  }
  return f(UnaryC<UnaryOp::Identity>{});
}

/// Calls f(MonoidC<m>{}).
template <class F>
decltype(auto) with_monoid(MonoidKind m, F&& f) {
  switch (m) {
    case MonoidKind::Plus:
      return f(MonoidC<MonoidKind::Plus>{});
    case MonoidKind::Times:
      return f(MonoidC<MonoidKind::Times>{});
    case MonoidKind::Min:
      return f(MonoidC<MonoidKind::Min>{});
    case MonoidKind::Max:
      return f(MonoidC<MonoidKind::Max>{});
    case MonoidKind::LOr:
      return f(MonoidC<MonoidKind::LOr>{});
    case MonoidKind::LAnd:
      return f(MonoidC<MonoidKind::LAnd>{});
    case MonoidKind::Any:
      return f(MonoidC<MonoidKind::Any>{});
  }
  return f(MonoidC<MonoidKind::Plus>{});
}

/// The monoid's operator. Any keeps its first operand, so reductions that start from the first
/// present element return the first one in index order.
template <class T>
constexpr T monoid_op(MonoidKind m, T a, T b) {
  switch (m) {
    case MonoidKind::Plus:
      return a + b;
    case MonoidKind::Times:
      return a * b;
    case MonoidKind::Min:
      return b < a ? b : a;
    case MonoidKind::Max:
      return a < b ? b : a;
    case MonoidKind::LOr:
      return (a != T(0) || b != T(0)) ? T(1) : T(0);
    case MonoidKind::LAnd:
      return (a != T(0) && b != T(0)) ? T(1) : T(0);
    case MonoidKind::Any:
      return a;
  }
  return a;
}

/// The monoid's identity for T (Plus 0, Times 1, Min +inf / max, Max -inf / lowest, LOr 0,
/// LAnd 1, Any 0).
template <class T>
constexpr T monoid_identity_of(MonoidKind m) {
  switch (m) {
    case MonoidKind::Plus:
      return T(0);
    case MonoidKind::Times:
      return T(1);
    case MonoidKind::Min:
      return detail::pos_inf<T>();
    case MonoidKind::Max:
      return detail::neg_inf<T>();
    case MonoidKind::LOr:
      return T(0);
    case MonoidKind::LAnd:
      return T(1);
    case MonoidKind::Any:
      return T(0);
  }
  return T(0);
}

/// A reduction's value after its first element x: op(identity, x), as if the fold had started
/// from the identity (so Min / Max skip a leading NaN the way the accumulators and semirings do,
/// and a one-element LOr / LAnd is 0 / 1), except for Any, which keeps x itself (the first
/// present element is the answer).
template <class T>
constexpr T monoid_first(MonoidKind m, T x) {
  if (m == MonoidKind::Any) return x;
  return monoid_op(m, monoid_identity_of<T>(m), x);
}

}  // namespace spindle::detail::cpu_kernels
