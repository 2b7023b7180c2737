// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file coo_builder.hpp
/// @brief The one way to turn coordinate entries into a Graph, with explicit policies.

#include <cstdint>
#include <vector>

#include "spindle/graph.hpp"

namespace spindle {

/// Coordinate entries (0-based). `val` is empty for pattern input (every entry is 1).
template <class I>
struct Coo {
  I rows = 0;
  I cols = 0;
  std::vector<I> row;
  std::vector<I> col;
  std::vector<double> val;
  std::int64_t size() const noexcept { return static_cast<std::int64_t>(row.size()); }
  bool has_values() const noexcept { return !val.empty() || row.empty(); }
};

/// What to do when the same (i, j) appears more than once.
enum class DuplicatePolicy : std::uint8_t {
  Default,    ///< Sum for weighted graphs, Collapse for pattern graphs
  Sum,        ///< add the values
  KeepFirst,  ///< keep the value that came first in the input
  KeepLast,   ///< keep the value that came last in the input
  Collapse,   ///< keep one entry (for pattern graphs; for weighted ones the same as KeepFirst)
  Error,      ///< throw InvalidArgument naming the entry
  Max,        ///< keep the largest value
  Min,        ///< keep the smallest value
};

/// What build_graph() did that a caller may want to tell its user.
struct BuildReport {
  /// Entries merged into another with the same (i, j) by the duplicate policy, counted after
  /// symmetrizing (an edge given in both directions of a symmetrized input merges twice: once
  /// in each row).
  std::int64_t merged_duplicates = 0;
};

enum class SelfLoopPolicy : std::uint8_t { Keep, Drop };

struct BuildOptions {
  DuplicatePolicy duplicates = DuplicatePolicy::Default;
  SelfLoopPolicy self_loops = SelfLoopPolicy::Keep;
  /// Add (j, i) for every (i, j) with i != j before duplicates are resolved (so an edge given in
  /// both directions is a duplicate). Requires a square shape.
  bool symmetrize = false;
  /// Keep NaN / Inf values; when false they are refused (InvalidArgument naming the entry). The
  /// file readers check values per line themselves (their own allow_nonfinite, false by default).
  bool allow_nonfinite = true;
  /// Filled when not null (see BuildReport).
  BuildReport* report = nullptr;
};

const char* to_string(DuplicatePolicy p);

/// Builds CSR from coordinates: validates every index against the shape (IndexOutOfBounds
/// naming the entry), applies the self-loop policy, symmetrizes, sorts each row by column
/// (stable, so "first" means first in the input) and resolves duplicates. O(nnz) memory beyond
/// the output; OpenMP-parallel; the result does not depend on the thread count. Mirrors are
/// added right after their entry, so every policy resolves (i, j) and (j, i) alike: the result of
/// a symmetrized build is symmetric whatever the policy.
/// Values are converted to V (ignored for Pattern). Consumes `coo`.
template <class I, class V>
Graph<I, V> build_graph(Coo<I> coo, const BuildOptions& options = {});

}  // namespace spindle
