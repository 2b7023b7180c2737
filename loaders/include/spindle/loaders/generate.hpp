// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generate.hpp
/// @brief Deterministic synthetic graphs: R-MAT (Chakrabarti, Zhan, Faloutsos 2004) and uniform.
///
/// Every edge e draws its random numbers from a counter-based stream keyed by (seed, e)
/// (splitmix64 finalizer), so the output is bit-identical for any OpenMP thread count and on any
/// machine. The result is raw: it may hold duplicates and self-loops; build_graph() resolves them
/// by its policies.

#include <cstdint>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"

namespace spindle {

/// R-MAT quadrant probabilities (d = 1 - a - b - c) and id scrambling.
struct RmatParams {
  double a = 0.57;
  double b = 0.19;
  double c = 0.19;
  /// Relabel vertices through a seeded bijection of [0, 2^scale) so that high degree vertices
  /// are not clustered at small ids (as in Graph500).
  bool scramble = true;
};

/// R-MAT graph with n = 2^scale vertices and exactly edge_factor * n entries (pattern: `val` is
/// empty), before any deduplication.
/// @param scale log2 of the vertex count; 0 <= scale <= 30 for int32_t, <= 62 for int64_t.
/// @param edge_factor entries per vertex, >= 0.
/// @param seed any value; the same (scale, edge_factor, seed, params) gives the same entries.
/// @throws InvalidArgument scale out of range, negative edge_factor, entry count overflow, or
///         probabilities that are negative or sum to more than 1.
template <class I>
Coo<I> generate_rmat(int scale, std::int64_t edge_factor, std::uint64_t seed,
                     const RmatParams& params = {});

/// Convenience overload with the quadrant probabilities given directly.
template <class I>
Coo<I> generate_rmat(int scale, std::int64_t edge_factor, std::uint64_t seed, double a, double b,
                     double c);

/// Uniform random (Erdos-Renyi style, with replacement) graph: n = 2^scale vertices,
/// edge_factor * n entries, each endpoint uniform in [0, n). Same determinism and limits as
/// generate_rmat().
template <class I>
Coo<I> generate_uniform(int scale, std::int64_t edge_factor, std::uint64_t seed);

/// Parameters of the built-in default graph (used when a command is given no file).
inline constexpr int kDefaultGraphScale = 16;
inline constexpr std::int64_t kDefaultGraphEdgeFactor = 16;
inline constexpr std::uint64_t kDefaultGraphSeed = 1;

/// The built-in default graph: R-MAT(kDefaultGraphScale, kDefaultGraphEdgeFactor,
/// kDefaultGraphSeed) with self-loops dropped and duplicates collapsed (every value 1).
template <class I, class V>
Graph<I, V> make_default_graph();

}  // namespace spindle
