// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file generate.hpp
/// @brief Deterministic synthetic graphs: R-MAT (Chakrabarti, Zhan, Faloutsos 2004), uniform,
/// 2D meshes, Chung-Lu power laws of any exponent, and rectangular bipartite (user x item) graphs,
/// plus one parser of the short graph names the benchmarks take (rmat22, mesh22, plaw22-g2.5, ...).
///
/// Every edge e draws its random numbers from a counter-based stream keyed by (seed, e)
/// (splitmix64 finalizer), so the output is bit-identical for any OpenMP thread count and on any
/// machine. The result is raw: it may hold duplicates and self-loops; build_graph() resolves them
/// by its policies.

#include <cstdint>
#include <string>

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

/// 2D mesh (road-like: degree <= 4, diameter ~ 2 * sqrt(n)): a grid of 2^ceil(scale/2) columns by
/// 2^floor(scale/2) rows, each vertex joined to its right and lower neighbours in both directions
/// (about 4 entries per vertex, no duplicates, no self-loops). Ids are row-major (neighbours are
/// near in id: a banded matrix) unless `scramble`, which relabels them by a seeded bijection.
/// @throws InvalidArgument scale outside 0..30 (int32_t) or 0..62 (int64_t).
template <class I>
Coo<I> generate_mesh(int scale, std::uint64_t seed, bool scramble);

/// Chung-Lu power law: n = 2^scale vertices, edge_factor * n entries whose endpoints are each
/// drawn with probability proportional to w(i) = (i + 1)^(-1 / (exponent - 1)), so both the in-
/// and the out-degrees follow P(degree = k) ~ k^-exponent (exponent 2.1: heavier tail than R-MAT;
/// 3: lighter). Without `scramble` vertex 0 is the largest hub and degrees fall with the id (hub
/// columns packed together); with it the ids are relabelled by a seeded bijection.
/// @throws InvalidArgument as generate_rmat(), or an exponent that is not in (1.5, 10].
template <class I>
Coo<I> generate_powerlaw(int scale, std::int64_t edge_factor, double exponent, std::uint64_t seed,
                         bool scramble);

/// Rectangular bipartite graph (users x items): 2^row_scale rows, 2^col_scale columns and
/// edge_factor * 2^row_scale entries; the row of an entry is uniform, its column follows
/// item popularity w(j) = (j + 1)^(-1 / (exponent - 1)) over scrambled ids.
/// @throws InvalidArgument as generate_powerlaw() for either scale.
template <class I>
Coo<I> generate_bipartite(int row_scale, int col_scale, std::int64_t edge_factor, double exponent,
                          std::uint64_t seed);

/// A generated graph named as the benchmarks name them (edge factor `edge_factor`, seed `seed`):
/// - `rmatS`, `uniformS`: generate_rmat / generate_uniform at scale S;
/// - `meshS` (row-major ids), `meshS-r` (scrambled ids): generate_mesh;
/// - `plawS-gX` (scrambled ids), `plawS-gX-o` (degree-ordered ids): generate_powerlaw with
///   exponent X, e.g. plaw22-g2.1;
/// - `bipS`: generate_bipartite with 2^S rows, 2^(S-2) columns and popularity exponent 2.2;
///   `bipsymS`: the same as one square undirected graph of 2^S + 2^(S-2) vertices (users first),
///   for algorithms that need a square matrix.
/// @throws InvalidArgument any other name, naming the accepted forms.
template <class I>
Coo<I> generate_named(const std::string& name, std::int64_t edge_factor, std::uint64_t seed);

/// Parameters of the built-in default graph (used when a command is given no file).
inline constexpr int kDefaultGraphScale = 16;
inline constexpr std::int64_t kDefaultGraphEdgeFactor = 16;
inline constexpr std::uint64_t kDefaultGraphSeed = 1;

/// The built-in default graph: R-MAT(kDefaultGraphScale, kDefaultGraphEdgeFactor,
/// kDefaultGraphSeed) with self-loops dropped and duplicates collapsed (every value 1).
template <class I, class V>
Graph<I, V> make_default_graph();

}  // namespace spindle
