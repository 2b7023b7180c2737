// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file instantiate.hpp
/// @brief The type lists every op is instantiated for, as X-macros, used by ops/core (public
/// templates), ops/cpu and ops/cuda_stub (backend entries) and ops/cuda (CUDA backend) so the
/// lists never drift. Each list calls the given macro once per combination; types are spelled
/// without commas so they pass through macro arguments.
///
///   SPINDLE_FOR_EACH_SEMIRING(X)         X(S, I, V): 10 built-in semirings x T {float, double}
///                                        x I {int32, int64} x V {float, double, Pattern}
///   SPINDLE_FOR_EACH_SEMIRING_OF_T(X, T) the same for one T (to split big files)
///   SPINDLE_FOR_EACH_VECTOR_TYPE(X)      X(T): vector element types {float, double, int32, int64}
///   SPINDLE_FOR_EACH_DENSE_TYPE(X)       X(T): dense-matrix / graph value results {float, double}
///   SPINDLE_FOR_EACH_GRAPH_RESULT(X)     X(T, I, V): T {float, double} x I x V
///   SPINDLE_FOR_EACH_GRAPH(X)            X(I, V): I x V

#include <cstdint>

#include "spindle/semiring.hpp"
#include "spindle/types.hpp"

#define SPINDLE_SEMIRINGS_FOR_(X, T, I, V)    \
  X(::spindle::semiring::plus_times<T>, I, V) \
  X(::spindle::semiring::min_plus<T>, I, V)   \
  X(::spindle::semiring::max_plus<T>, I, V)   \
  X(::spindle::semiring::max_times<T>, I, V)  \
  X(::spindle::semiring::min_times<T>, I, V)  \
  X(::spindle::semiring::plus_min<T>, I, V)   \
  X(::spindle::semiring::lor_land<T>, I, V)   \
  X(::spindle::semiring::any_pair<T>, I, V)   \
  X(::spindle::semiring::plus_pair<T>, I, V)  \
  X(::spindle::semiring::max_min<T>, I, V)

#define SPINDLE_FOR_EACH_SEMIRING_OF_T(X, T)                     \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int32_t, float)              \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int32_t, double)             \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int32_t, ::spindle::Pattern) \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int64_t, float)              \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int64_t, double)             \
  SPINDLE_SEMIRINGS_FOR_(X, T, std::int64_t, ::spindle::Pattern)

#define SPINDLE_FOR_EACH_SEMIRING(X)       \
  SPINDLE_FOR_EACH_SEMIRING_OF_T(X, float) \
  SPINDLE_FOR_EACH_SEMIRING_OF_T(X, double)

#define SPINDLE_FOR_EACH_VECTOR_TYPE(X) X(float) X(double) X(std::int32_t) X(std::int64_t)

#define SPINDLE_FOR_EACH_DENSE_TYPE(X) X(float) X(double)

#define SPINDLE_FOR_EACH_GRAPH(X)     \
  X(std::int32_t, float)              \
  X(std::int32_t, double)             \
  X(std::int32_t, ::spindle::Pattern) \
  X(std::int64_t, float)              \
  X(std::int64_t, double)             \
  X(std::int64_t, ::spindle::Pattern)

#define SPINDLE_GRAPH_RESULT_OF_T_(X, T) \
  X(T, std::int32_t, float)              \
  X(T, std::int32_t, double)             \
  X(T, std::int32_t, ::spindle::Pattern) \
  X(T, std::int64_t, float)              \
  X(T, std::int64_t, double)             \
  X(T, std::int64_t, ::spindle::Pattern)

#define SPINDLE_FOR_EACH_GRAPH_RESULT(X) \
  SPINDLE_GRAPH_RESULT_OF_T_(X, float)   \
  SPINDLE_GRAPH_RESULT_OF_T_(X, double)
