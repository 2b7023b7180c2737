// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file commands.hpp
/// @brief The table of subcommands. Each lives in its own cmd_<name>.cpp and exposes one entry
/// point; adding a subcommand is one file plus one line here. main.cpp only dispatches.

#include <string>
#include <vector>

namespace spindle::cli {

/// Runs a subcommand on the words after its name; returns the process exit status. Throws
/// UsageError (exit 2) or any std::exception (exit 1); main() prints those.
using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  const char* name;
  const char* summary;  ///< one line for `spindle --help`
  CommandFn run;
};

int cmd_info(const std::vector<std::string>& args);
int cmd_convert(const std::vector<std::string>& args);
int cmd_generate(const std::vector<std::string>& args);
int cmd_pagerank(const std::vector<std::string>& args);
int cmd_power_iteration(const std::vector<std::string>& args);
int cmd_gcn(const std::vector<std::string>& args);
int cmd_bfs(const std::vector<std::string>& args);
int cmd_sssp(const std::vector<std::string>& args);

/// In the order `spindle --help` lists them.
inline const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"info", "shape, value type and row-length statistics of a graph (--json, --explain)",
       cmd_info},
      {"convert", "convert between Matrix Market (.mtx) and edge lists (.txt/.tsv/.csv/.el)",
       cmd_convert},
      {"generate", "write a deterministic R-MAT or uniform random graph", cmd_generate},
      {"pagerank", "PageRank scores, top-K table and optional CSV/JSON of every vertex",
       cmd_pagerank},
      {"power-iteration", "dominant eigenpair of the adjacency (eigenvector centrality)",
       cmd_power_iteration},
      {"gcn", "graph convolutional network inference (Kipf-Welling layers) to .npy", cmd_gcn},
      {"bfs", "breadth-first search levels and parents from a source vertex", cmd_bfs},
      {"sssp", "single-source shortest path distances (min-plus relaxation)", cmd_sssp},
  };
  return table;
}

}  // namespace spindle::cli
