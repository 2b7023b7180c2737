// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file graph_output.hpp
/// @brief Writing graphs for `convert` and `generate`: the format follows the output's
/// extension, and numbered vertices are written 1-based in every format so that ids mean the
/// same vertex in a .mtx file and in the edge list made from it.

#include <string>
#include <vector>

#include "args.hpp"
#include "input.hpp"

namespace spindle::cli {

/// What to write.
struct GraphWriteOptions {
  /// Matrix Market: store only the lower triangle as `symmetric` (the graph must be symmetric).
  bool symmetric = false;
  /// Labels of the vertices (edge lists); empty: 1..n.
  std::vector<std::string> labels;
  /// Provenance lines written as comments (`%` in .mtx, `#` in edge lists).
  std::vector<std::string> comments;
};

/// The format implied by an output path's extension: .mtx/.mm are Matrix Market; .txt, .tsv,
/// .csv, .el and .edges are edge lists (separated by tab for .tsv, comma for .csv, else space).
/// Anything else is a usage error naming the accepted extensions.
GraphFileFormat output_format(const ArgParser& p, const std::string& path);

/// Writes `g` to `path` (atomically). Edge lists need a square graph (InvalidArgument).
void write_graph_file(const std::string& path, const AnyGraph& g, GraphFileFormat format,
                      const GraphWriteOptions& options);

}  // namespace spindle::cli
