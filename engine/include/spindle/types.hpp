// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file types.hpp
/// @brief Value and index type vocabulary shared by every layer.

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "spindle/error.hpp"

#if defined(__CUDACC__)
#define SPINDLE_HD __host__ __device__
#else
#define SPINDLE_HD
#endif

namespace spindle {

/// Value type of a pattern-only graph: no value array is stored and every stored entry is 1.
struct Pattern {};

template <class V>
inline constexpr bool is_pattern_v = std::is_same_v<V, Pattern>;

/// Run-time tag of a value type (for files, the CLI and the planner).
enum class ValueKind : std::uint8_t { Pattern, Float, Double };

/// Run-time tag of an index type.
enum class IndexKind : std::uint8_t { Int32, Int64 };

template <class V>
constexpr ValueKind value_kind_of() {
  if constexpr (is_pattern_v<V>) {
    return ValueKind::Pattern;
  } else if constexpr (std::is_same_v<V, float>) {
    return ValueKind::Float;
  } else {
    static_assert(std::is_same_v<V, double>, "value type must be float, double or Pattern");
    return ValueKind::Double;
  }
}

template <class I>
constexpr IndexKind index_kind_of() {
  static_assert(std::is_same_v<I, std::int32_t> || std::is_same_v<I, std::int64_t>,
                "index type must be int32_t or int64_t");
  return std::is_same_v<I, std::int32_t> ? IndexKind::Int32 : IndexKind::Int64;
}

inline const char* to_string(ValueKind k) {
  switch (k) {
    case ValueKind::Pattern:
      return "pattern";
    case ValueKind::Float:
      return "float";
    case ValueKind::Double:
      return "double";
  }
  return "?";
}

inline const char* to_string(IndexKind k) { return k == IndexKind::Int32 ? "int32" : "int64"; }

/// Value of a stored entry as T: 1 for pattern graphs.
template <class T, class V>
SPINDLE_HD constexpr T entry_value(const V* values, std::int64_t k) {
  if constexpr (is_pattern_v<V>) {
    (void)values;
    (void)k;
    return T(1);
  } else {
    return static_cast<T>(values[k]);
  }
}

/// Checked narrowing: throws InvalidArgument naming `what` if v does not fit in To.
template <class To, class From>
To checked_cast(From v, const char* what) {
  static_assert(std::is_integral_v<To> && std::is_integral_v<From>);
  if constexpr (std::is_signed_v<From> == std::is_signed_v<To>) {
    // Only a narrower To can lose values; comparing in From's type is exact then (casting To's
    // limits to a narrower From would truncate them and refuse every widening).
    if constexpr (sizeof(From) > sizeof(To)) {
      if (v < static_cast<From>(std::numeric_limits<To>::min()) ||
          v > static_cast<From>(std::numeric_limits<To>::max())) {
        throw InvalidArgument(std::string(what) + " = " + std::to_string(v) +
                              " does not fit in the index type");
      }
    }
  } else {
    if constexpr (std::is_signed_v<From>) {
      if (v < 0) throw InvalidArgument(std::string(what) + " is negative");
    }
    using U = std::make_unsigned_t<std::common_type_t<From, To>>;
    if (static_cast<U>(v) > static_cast<U>(std::numeric_limits<To>::max())) {
      throw InvalidArgument(std::string(what) + " = " + std::to_string(v) +
                            " does not fit in the index type");
    }
  }
  return static_cast<To>(v);
}

/// a * b for non-negative sizes, throwing InvalidArgument on overflow (sizes read from files).
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const char* what) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) {
    throw InvalidArgument(std::string(what) + " overflows 64 bits");
  }
  return a * b;
}

namespace detail {
/// std::type_identity (C++20): a parameter of this type takes no part in template deduction, so
/// `assign(w_double, mask, accum, 0)` converts 0 instead of failing to deduce T.
template <class T>
struct type_identity {
  using type = T;
};
template <class T>
using type_identity_t = typename type_identity<T>::type;
}  // namespace detail

}  // namespace spindle
