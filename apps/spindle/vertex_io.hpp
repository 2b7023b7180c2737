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

/// Extensions accepted by write_vertex_file.
bool is_vertex_file_extension(const std::string& path);

/// Writes every vertex as CSV (`vertex,<col>,...`, a header line then one line per vertex in
/// internal order; `.tsv` separates by tabs) or, for `.json`, one object: the `meta` fields
/// (already JSON-encoded values) then one map per column from vertex id to value. Atomic (temporary
/// + rename). The text is formatted on all OpenMP threads and written in order.
/// @throws Error when writing fails, InvalidArgument for an unknown extension.
void write_vertex_file(const std::string& path, const Input& in,
                       const std::vector<VertexColumn>& columns,
                       const std::vector<std::pair<std::string, std::string>>& meta);

/// Checks up front that `path` has a known extension and can be created, so a long run does
/// not fail at the very end. @throws UsageError (extension) or Error (folder not writable).
void check_vertex_output(const ArgParser& p, const std::string& flag);

/// Internal ids of the k largest scores (ties: smaller internal id first), in order.
std::vector<std::int64_t> top_k(const std::vector<double>& score, std::int64_t k);

/// Prints "rank  vertex  <score_name>" rows for `order` on stdout.
void print_top_table(const Input& in, const std::vector<std::int64_t>& order,
                     const std::vector<double>& score, const std::string& score_name);

/// Reads a `vertex,weight` CSV (ids in the input's own convention; `#` comments, blank lines
/// and a header line allowed; comma, tab or spaces between the fields). Unlisted vertices get 0.
/// @throws ParseError naming file:line for unknown vertices, repeated vertices, negative or
///         malformed weights; InvalidArgument when all weights are 0.
std::vector<double> read_vertex_weights(const std::string& path, const Input& in);

/// Shortest text that reads back as the same float / double.
std::string format_value(float v);
std::string format_value(double v);

}  // namespace spindle::cli
