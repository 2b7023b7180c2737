// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file input.hpp
/// @brief How every subcommand reads its graph: format by extension/content, index type by
/// size, values only when asked for, and the map between internal 0-based ids and the ids a
/// user sees (1-based Matrix Market indices, original edge-list labels).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "args.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/load_graph.hpp"

namespace spindle::cli {

/// The graph types the CLI works with: int32 indices unless n or nnz reach 2^31; pattern unless
/// the command needs edge values (doubles; the algorithms convert to their precision).
using AnyGraph = std::variant<Graph<std::int32_t, Pattern>, Graph<std::int32_t, double>,
                              Graph<std::int64_t, Pattern>, Graph<std::int64_t, double>>;

/// Whether to read edge values.
enum class ValueMode : std::uint8_t {
  Pattern,   ///< structure only (every edge 1): half the bytes, what PageRank/BFS need
  Weighted,  ///< the file's values (1 where the file has none)
  AsFile,    ///< values when the file has them, else pattern (info, convert)
};

struct InputOptions {
  ValueMode values = ValueMode::Pattern;
  /// Edge lists: add the reverse of every edge. (Symmetric Matrix Market files are always
  /// expanded to both directions; for general .mtx files this symmetrizes too.)
  bool undirected = false;
  /// Keep NaN / Inf edge values instead of refusing the file.
  bool allow_nonfinite = false;
  /// Matrix Market files without the %%MatrixMarket banner (read as coordinate general).
  bool headerless = false;
  /// Edge lists: columns after the third (src dst weight) are ignored instead of refused.
  bool ignore_extra_columns = false;
  /// Edge lists: header row handling (--header auto|yes|no).
  EdgeListHeader header = EdgeListHeader::Auto;
  /// A file without edges is an empty graph instead of an error (--allow-empty).
  bool allow_empty = false;
  /// Matrix Market and .spg: take the declared dimensions however large (--trust-dimensions).
  bool trust_dimensions = false;
  /// What the same edge given more than once becomes (--duplicates).
  DuplicatePolicy duplicates = DuplicatePolicy::Default;
  /// Force int64 indices (tests; huge graphs pick it by themselves).
  bool force_int64 = false;
};

/// A loaded graph plus everything needed to talk about its vertices in the user's terms.
struct Input {
  AnyGraph graph;
  /// What to call the graph in output headers: the path, or a description of the default.
  std::string name;
  /// The path read (empty for the built-in default graph).
  std::string path;
  GraphFileFormat format = GraphFileFormat::MatrixMarket;
  /// Matrix Market header (default for edge lists, .spg files and the built-in graph).
  MatrixMarketHeader header;
  /// The header of a .spg file (default otherwise).
  SpgHeader spg_header;
  /// Edge lists: labels[v] is the token that named internal vertex v (also a Matrix Market
  /// file's labels file, labels_file.hpp). Empty: ids are v + 1.
  std::vector<std::string> labels;
  bool labels_are_integers = true;
  /// The labels file the labels came from (Matrix Market), or "".
  std::string labels_path;
  /// The file stores edge values (mtx real/integer, edge list with a weight column, .spg float
  /// or double).
  bool file_has_values = false;
  bool builtin = false;

  std::int64_t rows() const;
  std::int64_t cols() const;
  std::int64_t nnz() const;
  bool is_pattern() const;
  bool is_int64() const;
  const GraphStats& stats() const;

  /// The id a user sees for internal vertex v.
  std::string vertex_id(std::int64_t v) const;
  /// Internal id of a user-facing id. @throws InvalidArgument naming `what` and the graph when
  /// the id is not a vertex (with the valid range for numbered graphs).
  std::int64_t find_vertex(const std::string& id, const std::string& what) const;
  /// "1-based" (numbered vertices) or "labels" (edge-list tokens): how ids are written.
  std::string id_convention() const;

 private:
  mutable std::unordered_map<std::string, std::int64_t> label_index_;
};

/// Reads `path` (or builds the built-in default R-MAT graph when nullopt; `-` is standard input).
/// Prints a progress line with the load time on stderr when it is a terminal; notes a skipped
/// header row; warns when duplicate weighted edges were merged.
/// @throws ParseError / Error / Unsupported from the loaders, with the file named.
Input load_input(const std::optional<std::string>& path, const InputOptions& options);

/// One line describing the built-in default graph ("built-in R-MAT scale 16, ...").
std::string builtin_graph_description();

/// Calls f(graph) with the concrete Graph<I, V> held by `g`.
template <class F>
decltype(auto) visit_graph(const AnyGraph& g, F&& f) {
  return std::visit(std::forward<F>(f), g);
}

/// Declares the input flags every graph-reading command has: --undirected, --allow-nonfinite,
/// --headerless, --ignore-extra-columns, --header, --duplicates, --allow-empty,
/// --trust-dimensions (and --weighted when `weighted_help` is non-empty).
void add_input_flags(ArgParser& p, const std::string& weighted_help);
/// The InputOptions the flags of add_input_flags ask for.
InputOptions input_options(const ArgParser& p, ValueMode values);

}  // namespace spindle::cli
