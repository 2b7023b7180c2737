// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file vertex_io.hpp
/// @brief Per-vertex results in the user's ids: CSV/JSON output files, top-K tables, and the
/// vertex,weight CSV read by --personalize.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "input.hpp"

namespace spindle::cli {

/// One per-vertex column of an output file.
struct VertexColumn {
  std::string name;
  /// Value of internal vertex v as a CSV field / JSON value; an empty string means "none"
  /// (an empty CSV field, JSON null). Called concurrently for different v (write_vertex_file
  /// formats on all threads): read plain arrays, not containers whose accessors may sync or
  /// mark state (a Vector's operator[], const or not, may make or download its host array).
  std::function<std::string(std::int64_t)> format;
  /// Ids of other vertices (e.g. BFS parents): JSON strings, like the maps' keys.
  bool is_vertex_id = false;
};

/// A label as a CSV field: quoted (inner quotes doubled) when it holds a comma, quote or line
/// break.
std::string csv_field(const std::string& s);

/// Formats of a per-vertex result file.
enum class VertexFormat : std::uint8_t { Csv, Tsv, Json };

/// Declares --format (of --output) in the current group.
void add_vertex_format_flag(ArgParser& p);

/// The format of the --output file named by flag `flag`: --format, else its extension (.csv,
/// .tsv, .json); `-o -` (standard output) needs --format. Also turns the report on standard
/// output off when the file goes there. @throws UsageError for an unknown or missing format.
VertexFormat check_vertex_output(const ArgParser& p, const std::string& flag);

/// Writes every vertex as CSV (`vertex,<col>,...`, a header line then one line per vertex in
/// internal order), TSV (the same with tabs) or JSON (one object: the `meta` fields, already
/// JSON-encoded values, then one map per column from vertex id to value). Labels are escaped for
/// each format: CSV quoting, TSV backslash escapes (\t \n \r \\), JSON escapes with bytes that
/// are not UTF-8 written as \udcXX (Python's surrogateescape). Written through
/// spindle::AtomicFileWriter (`-` is standard output). The text is formatted on all OpenMP
/// threads and written in order.
/// @throws Error when writing fails.
void write_vertex_file(const std::string& path, VertexFormat format, const Input& in,
                       const std::vector<VertexColumn>& columns,
                       const std::vector<std::pair<std::string, std::string>>& meta);

/// Internal ids of the k largest scores (ties: smaller internal id first), in order.
std::vector<std::int64_t> top_k(const std::vector<double>& score, std::int64_t k);

/// The k vertices with the largest finite scores, among those with `keep(v)` (ties: smaller
/// internal id first), in order.
std::vector<std::int64_t> top_k_where(const std::vector<double>& score, std::int64_t k,
                                      const std::function<bool(std::int64_t)>& keep);

/// Prints "rank  vertex  <score_name>" rows for `order` on stdout (the report); labels with
/// control characters are shown escaped.
void print_top_table(const Input& in, const std::vector<std::int64_t>& order,
                     const std::vector<double>& score, const std::string& score_name);

/// A label as it is safe to show on a terminal: control bytes as \xNN.
std::string printable(const std::string& label);

/// Reads a `vertex,weight` CSV (ids in the input's own convention; `#` comments and blank
/// lines allowed; comma, tab or spaces between the fields). Unlisted vertices get 0. A first
/// line whose two fields are words, neither a vertex nor a number (`vertex,weight`), is a header:
/// skipped with a note. Read with spindle::read_text_file (`-` is standard input).
/// @throws ParseError naming file:line for unknown vertices, repeated vertices, negative,
///         non-finite, overflowing or malformed weights; InvalidArgument when all weights are 0.
std::vector<double> read_vertex_weights(const std::string& path, const Input& in);

/// Shortest text that reads back as the same float / double.
std::string format_value(float v);
std::string format_value(double v);

}  // namespace spindle::cli
