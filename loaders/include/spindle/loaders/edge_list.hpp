// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file edge_list.hpp
/// @brief Edge-list reader and writer (SNAP, TSV, CSV, space-separated) with label remapping.
///
/// Format, line by line (LF or CRLF; missing final newline allowed):
///  - blank lines and lines whose first non-blank character is `#` or `%` are skipped;
///  - otherwise `src <sep> dst [<sep> weight]`. The separator is detected per line: a line with
///    a comma is split at commas (spaces/tabs around fields are trimmed, so labels may contain
///    inner spaces), otherwise at runs of spaces/tabs. Quotes have no special meaning;
///  - a header row (`source,target[,weight]`) is recognized and skipped (EdgeListCoo::header
///    says which line): a first edge line whose first two fields are both header words (source,
///    target, src, dst, from, to, node1, node2, ...), or whose fields are not numbers where the
///    next edge line has numbers (ids, or the weight column). EdgeListOptions::header decides
///    otherwise;
///  - the first edge line fixes the column count (2: unweighted, 3: weighted, more: refused
///    unless ignore_extra_columns); every later line must have the same count, or with
///    ignore_extra_columns at least 2 (3 when weighted), the rest being ignored;
///  - weights are decimal floating point (`nan`/`inf` only with allow_nonfinite);
///  - a NUL byte anywhere is refused (binary data, not an edge list);
///  - a file without any edge (empty, or only comments) is refused unless allow_empty: an empty
///    stream is far more often a failed producer (`<(zcat missing.gz)`) than an empty graph.
///
/// Labels (src/dst) are arbitrary tokens: integers of any size or sign, sparse or not, or
/// strings. They are remapped to 0..n-1 in order of first appearance in the file (src before
/// dst on each line), which is deterministic; `labels[id]` gives the original token back so
/// output can use the original ids. Two tokens name the same vertex iff they are the same
/// string (`7` and `007` are different vertices).

#include <cstdint>
#include <string>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"

namespace spindle {

/// Whether the first edge line of an edge list is a header row.
enum class EdgeListHeader : std::uint8_t {
  Auto,     ///< recognized as described in the file comment
  Present,  ///< the first line that is not blank or a comment is a header: skipped
  Absent,   ///< every line that is not blank or a comment is an edge
};

/// How to read an edge list.
struct EdgeListOptions {
  /// Add the reverse of every edge (BuildOptions::symmetrize); an edge listed in both
  /// directions then becomes a duplicate resolved by build.duplicates. Default: directed.
  bool undirected = false;
  /// Duplicate and self-loop policies for build_graph(); `symmetrize` is OR-ed with undirected;
  /// `allow_nonfinite` is ignored (see below).
  BuildOptions build{};
  /// Keep NaN / Inf weights. Default: ParseError naming file:line.
  bool allow_nonfinite = false;
  /// Accept more columns than the first edge line's 2 or 3 (e.g. timestamps), on any line, and
  /// ignore them.
  bool ignore_extra_columns = false;
  /// Header row handling (see EdgeListHeader).
  EdgeListHeader header = EdgeListHeader::Auto;
  /// Accept a file without edges as an empty graph (0 vertices) instead of a ParseError.
  bool allow_empty = false;
  /// OpenMP threads for parsing; 0 = omp_get_max_threads().
  int threads = 0;
  /// Progress on stderr for loads over ~1 s when stderr is a terminal.
  bool progress = true;
};

/// Raw result of reading an edge list: remapped entries, before any graph is built.
template <class I>
struct EdgeListCoo {
  /// Square n x n (n = labels.size()); entries in file order, 0-based; `val` empty when the
  /// file has no weight column. Reverse edges are NOT added here (undirected is applied by
  /// read_edge_list through build_graph).
  Coo<I> coo;
  /// labels[id] = the token that named vertex id in the file.
  std::vector<std::string> labels;
  /// True when every label is a decimal integer (so tools may print them as numbers).
  bool labels_are_integers = true;
  /// True when the file has a weight column.
  bool weighted = false;
  /// The header row that was skipped ("" when none) and its 1-based line number.
  std::string header;
  std::int64_t header_line = 0;
};

/// A graph read from an edge list, with the map back to the original labels.
template <class I, class V>
struct EdgeListResult {
  Graph<I, V> graph;
  std::vector<std::string> labels;
  bool labels_are_integers = true;
  bool weighted = false;
  /// The header row that was skipped ("" when none) and its 1-based line number.
  std::string header;
  std::int64_t header_line = 0;
};

/// Reads and remaps an edge list without building a graph.
/// @throws ParseError missing column, column count different from the first edge line, empty
///         field, bad or non-finite weight, a NUL byte, no edge at all without allow_empty
///         (file:line and what was expected).
/// @throws InvalidArgument more distinct labels than I can index.
/// @throws Error the file cannot be opened.
template <class I>
EdgeListCoo<I> read_edge_list_coo(const std::string& path, const EdgeListOptions& options = {});

/// Reads an edge list into a Graph (values: the weights, or 1 when the file has none; ignored
/// for V = Pattern). Throws as read_edge_list_coo() plus what build_graph() throws.
template <class I, class V>
EdgeListResult<I, V> read_edge_list(const std::string& path, const EdgeListOptions& options = {});

/// How to write an edge list.
struct EdgeListWriteOptions {
  /// Field separator: ' ', '\t' or ','.
  char separator = ' ';
  /// Write the weight column for non-pattern graphs.
  bool weights = true;
  /// Write only entries with row <= col (one line per undirected edge of a symmetric graph).
  bool upper_triangle_only = false;
  /// Written first as `# ` lines (newlines inside become separate comment lines).
  std::vector<std::string> comments;
  /// OpenMP threads for formatting; 0 = omp_get_max_threads().
  int threads = 0;
};

/// Writes one line `src sep dst [sep weight]` per stored entry, row by row. Vertex v is written
/// as labels[v] when labels is non-empty (it must then hold at least max(rows, cols) labels,
/// else InvalidArgument), as the 0-based id otherwise. Weights use shortest round-trip form.
/// Atomic: written to `path.tmp.<pid>` and renamed; removed on error.
/// @throws InvalidArgument too few labels or a bad separator; Error when writing fails.
template <class I, class V>
void write_edge_list(const std::string& path, const Graph<I, V>& graph,
                     const std::vector<std::string>& labels = {},
                     const EdgeListWriteOptions& options = {});

}  // namespace spindle
