// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file operators.hpp
/// @brief Built-in binary operators (accumulators, eWise ops) and unary operators (apply).
///
/// They are run-time values rather than types: an accumulator or an apply epilogue is a small
/// switch per element, which keeps the number of compiled kernel variants bounded. Semirings,
/// which sit in the inner loop, stay compile-time traits (semiring.hpp).

#include <cmath>
#include <cstdint>

#include "spindle/types.hpp"

namespace spindle {

/// Binary operators z = op(x, y).
enum class BinaryOp : std::uint8_t {
  First,   ///< x
  Second,  ///< y
  Plus,
  Minus,  ///< x - y
  Times,
  Div,  ///< x / y
  Min,
  Max,
  LOr,   ///< (x != 0 || y != 0)
  LAnd,  ///< (x != 0 && y != 0)
  Any,   ///< x (either operand is acceptable; Spindle returns the first)
  Pair,  ///< 1
};

const char* to_string(BinaryOp op);

template <class T>
SPINDLE_HD inline T apply_binary(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::First:
      return x;
    case BinaryOp::Second:
      return y;
    case BinaryOp::Plus:
      return x + y;
    case BinaryOp::Minus:
      return x - y;
    case BinaryOp::Times:
      return x * y;
    case BinaryOp::Div:
      return x / y;
    case BinaryOp::Min:
      return y < x ? y : x;
    case BinaryOp::Max:
      return x < y ? y : x;
    case BinaryOp::LOr:
      return (x != T(0) || y != T(0)) ? T(1) : T(0);
    case BinaryOp::LAnd:
      return (x != T(0) && y != T(0)) ? T(1) : T(0);
    case BinaryOp::Any:
      return x;
    case BinaryOp::Pair:
      return T(1);
  }
  return x;
}

/// An accumulator: w(i) = op(w(i), t(i)) where both exist. `Accum::none()` replaces w(i) by t(i).
struct Accum {
  bool enabled = false;
  BinaryOp op = BinaryOp::Second;
  static constexpr Accum none() { return Accum{}; }
  static constexpr Accum with(BinaryOp op) { return Accum{true, op}; }
  static constexpr Accum plus() { return with(BinaryOp::Plus); }
  static constexpr Accum min() { return with(BinaryOp::Min); }
  static constexpr Accum max() { return with(BinaryOp::Max); }
};

/// Unary operators z = op(x) with an optional bound scalar s.
enum class UnaryOp : std::uint8_t {
  Identity,
  AInv,  ///< -x
  MInv,  ///< 1 / x
  Abs,
  One,   ///< 1
  Relu,  ///< max(x, 0)
  Sqrt,
  RSqrt,        ///< 1 / sqrt(x), 0 where x == 0 (degree normalization)
  PlusScalar,   ///< x + s
  TimesScalar,  ///< x * s
  MinScalar,    ///< min(x, s)
  MaxScalar,    ///< max(x, s)
  DivByScalar,  ///< x / s
  ScalarDiv,    ///< s / x, 0 where x == 0 (inverse degrees)
  IsNonzero,    ///< x != 0 ? 1 : 0
};

const char* to_string(UnaryOp op);

/// A unary operator with its scalar, e.g. `Unary<double>::times(0.85)`.
template <class T>
struct Unary {
  UnaryOp op = UnaryOp::Identity;
  T scalar = T(0);
  static constexpr Unary make(UnaryOp op, T s = T(0)) { return Unary{op, s}; }
  static constexpr Unary times(T s) { return Unary{UnaryOp::TimesScalar, s}; }
  static constexpr Unary plus(T s) { return Unary{UnaryOp::PlusScalar, s}; }
};

template <class T>
SPINDLE_HD inline T apply_unary(UnaryOp op, T x, T s) {
  switch (op) {
    case UnaryOp::Identity:
      return x;
    case UnaryOp::AInv:
      return -x;
    case UnaryOp::MInv:
      return T(1) / x;
    case UnaryOp::Abs:
      return x < T(0) ? -x : x;
    case UnaryOp::One:
      return T(1);
    case UnaryOp::Relu:
      return x > T(0) ? x : T(0);
    case UnaryOp::Sqrt:
      return static_cast<T>(std::sqrt(x));
    case UnaryOp::RSqrt:
      return x == T(0) ? T(0) : static_cast<T>(T(1) / std::sqrt(x));
    case UnaryOp::PlusScalar:
      return x + s;
    case UnaryOp::TimesScalar:
      return x * s;
    case UnaryOp::MinScalar:
      return s < x ? s : x;
    case UnaryOp::MaxScalar:
      return x < s ? s : x;
    case UnaryOp::DivByScalar:
      return x / s;
    case UnaryOp::ScalarDiv:
      return x == T(0) ? T(0) : s / x;
    case UnaryOp::IsNonzero:
      return x != T(0) ? T(1) : T(0);
  }
  return x;
}

/// Monoids for reduce: the add of a semiring or one of these.
enum class MonoidKind : std::uint8_t { Plus, Times, Min, Max, LOr, LAnd, Any };

}  // namespace spindle
