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
int cmd_triangles(const std::vector<std::string>& args);
int cmd_components(const std::vector<std::string>& args);
int cmd_kcore(const std::vector<std::string>& args);
int cmd_ktruss(const std::vector<std::string>& args);
int cmd_hits(const std::vector<std::string>& args);
int cmd_katz(const std::vector<std::string>& args);
int cmd_betweenness(const std::vector<std::string>& args);
int cmd_jaccard(const std::vector<std::string>& args);
int cmd_bench(const std::vector<std::string>& args);

/// In the order `spindle --help` lists them.
inline const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"info", "shape, nnz and row-length statistics (--json, --explain)", cmd_info},
      {"convert", "Matrix Market (.mtx) <-> edge lists (.txt/.tsv/.csv/.el)", cmd_convert},
      {"generate", "write a deterministic R-MAT or uniform random graph", cmd_generate},
      {"pagerank", "PageRank: top-K table, every vertex to CSV/JSON", cmd_pagerank},
      {"power-iteration", "dominant eigenpair; eigenvector centrality", cmd_power_iteration},
      {"gcn", "GCN inference (Kipf & Welling) to a .npy file", cmd_gcn},
      {"bfs", "breadth-first levels and parents from a vertex", cmd_bfs},
      {"sssp", "shortest path distances from a vertex (min-plus)", cmd_sssp},
      {"triangles", "triangle counts, per vertex, and clustering coefficients", cmd_triangles},
      {"components", "weakly (FastSV) or strongly connected components", cmd_components},
      {"kcore", "core numbers (k-core decomposition) by peeling", cmd_kcore},
      {"ktruss", "the k-truss (networkx.k_truss) and truss numbers", cmd_ktruss},
      {"hits", "HITS hubs and authorities (networkx.hits)", cmd_hits},
      {"katz", "Katz centrality (networkx.katz_centrality)", cmd_katz},
      {"betweenness", "betweenness centrality, exact or sampled (Brandes)", cmd_betweenness},
      {"jaccard", "Jaccard coefficients of vertex pairs or of every edge", cmd_jaccard},
      {"bench", "benchmarks: mxv, mxm, sddmm, gcn, pagerank (GPU, vs cuSPARSE), CPU", cmd_bench},
  };
  return table;
}

}  // namespace spindle::cli
