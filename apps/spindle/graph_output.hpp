// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph_output.hpp
/// @brief Writing graphs for `convert` and `generate`: the format follows the output's
/// extension (or --format), and numbered vertices are written 1-based in every format so that
/// ids mean the same vertex in a .mtx file and in the edge list made from it.

#include <string>
#include <vector>

#include "args.hpp"
#include "input.hpp"

namespace spindle::cli {

/// What to write.
struct GraphWriteOptions {
  /// Matrix Market: store only the lower triangle as `symmetric` (the graph must be symmetric);
  /// .spg: set the header's symmetric flag.
  bool symmetric = false;
  /// Labels of the vertices: edge lists write them instead of 1..n; Matrix Market keeps them in
  /// OUT.labels beside the matrix (labels_file.hpp); a .spg file inside itself. Empty: 1..n.
  std::vector<std::string> labels;
  /// Provenance lines written as comments (`%` in .mtx, `#` in edge lists).
  std::vector<std::string> comments;
};

/// Declares --format (of the graph output) in the current group.
void add_graph_format_flag(ArgParser& p);

/// The format of the graph output `path`: --format (mtx, spg, txt, el, tsv, csv), else the
/// extension: .mtx/.mm are Matrix Market; .spg the binary CSR file; .txt, .tsv, .csv, .el and
/// .edges are edge lists
/// (separated by tab for .tsv, comma for .csv, else space). `-` (standard output) needs
/// --format. Anything else is a usage error naming the accepted extensions. `separator` gets the
/// edge-list separator.
GraphFileFormat output_format(const ArgParser& p, const std::string& path, char* separator);

/// The labels file kept beside a Matrix Market output (`OUT.labels`), or "" for standard output.
std::string labels_file_of(const std::string& path);

/// Writes `g` to `path` through spindle::AtomicFileWriter. A Matrix Market file with labels is
/// written together with OUT.labels (both finished before either is published); one without
/// labels removes a stale OUT.labels once it is in place. Edge lists need a square graph
/// (InvalidArgument).
void write_graph_file(const std::string& path, const AnyGraph& g, GraphFileFormat format,
                      char separator, const GraphWriteOptions& options);

}  // namespace spindle::cli
