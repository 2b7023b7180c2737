// SPDX-License-Identifier: Apache-2.0
// spindle betweenness FILE: Brandes betweenness centrality, exact or from sampled sources.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/betweenness.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/text_file.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

int cmd_betweenness(const std::vector<std::string>& args) {
  ArgParser p(
      "betweenness", "FILE [options]",
      "Betweenness centrality (networkx.betweenness_centrality with weight=None): the share of "
      "shortest paths (by hop count, along out-edges) between other vertices that pass through "
      "each vertex, by Brandes's algorithm for a batch of sources at once (SpMM over dense "
      "frontier matrices). Exact by default; with -k, from K sampled sources. Scaled exactly as "
      "networkx scales it: normalized by the number of (s, t) pairs that could pass through a "
      "vertex (1 / ((N-1)(N-2))-style, N = n or n-1 without --endpoints; sampled sources and the "
      "others are scaled apart without --endpoints), or with --no-normalize the raw pair counts "
      "extrapolated to n sources and halved on undirected graphs (a symmetric .mtx or .spg file, "
      "or "
      "--undirected), as networkx does on an nx.Graph.");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.group("Betweenness");
  p.option("samples", "K", "", "sample K distinct sources instead of using every vertex", 'k');
  p.option("seed", "X", "0",
           "seed of the sampling (std::mt19937_64, not Python's random: the same seed does not "
           "pick networkx's sources; pass those with --sources)");
  p.option("sources", "FILE", "",
           "the sampled sources, one vertex per line in the input's own ids (replaces -k)");
  p.flag("endpoints", "count the endpoints of each path as on it (networkx's endpoints=True)");
  p.flag("no-normalize", "unnormalized scores (networkx's normalized=False)");
  p.option("batch", "B", "auto", "sources per batch (columns of the dense frontier matrices)");
  p.group("Output");
  p.option("top", "K", "10", "print the K most central vertices (0: none)");
  p.option("output", "FILE", "",
           "write 'vertex,betweenness' for every vertex (.csv, .tsv or .json; '-': standard "
           "output, with --format)",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, false, false});
  p.section("Examples",
            "  spindle betweenness karate.mtx\n"
            "  spindle betweenness web.txt -k 256 --seed 7 -o bc.csv\n");
  if (!p.parse(args)) return 0;
  BetweennessOptions opt;
  if (p.has("samples")) opt.k = p.integer("samples", -1, 0, std::int64_t{1} << 40);
  opt.seed = static_cast<std::uint64_t>(p.integer("seed", 0, 0, std::int64_t{1} << 62));
  opt.endpoints = p.has("endpoints");
  opt.normalized = !p.has("no-normalize");
  if (p.has("batch")) opt.batch = p.integer("batch", 0, 1, std::int64_t{1} << 20);
  if (p.has("samples") && p.has("sources")) p.fail("-k and --sources cannot be used together");
  auto output = p.get("output");
  const std::int64_t top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, false});
  const VertexFormat format = output ? check_vertex_output(p, "output") : VertexFormat::Csv;
  check_outputs(
      {{"the graph", p.operand_value(0).value_or("")}, {"--sources", p.get_or("sources", "")}},
      {{"-o", output.value_or("")}});
  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("betweenness needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  const bool symmetric_file = in.header.symmetry != MmSymmetry::General ||
                              (in.format == GraphFileFormat::Spg && in.spg_header.symmetric);
  opt.directed = !(io.undirected || symmetric_file);
  opt.device = ex.device;
  if (auto file = p.get("sources")) {
    std::istringstream lines(read_text_file(input_path(*file)));
    std::string line;
    while (std::getline(lines, line)) {
      // One id per line; blanks around it (spaces, tabs, a CR) are not part of it.
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos) continue;
      line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
      if (line[0] == '#') continue;
      opt.sources.push_back(in.find_vertex(line, "--sources"));
    }
    if (opt.sources.empty()) throw InvalidArgument("--sources: " + *file + " names no vertex");
  }
  print_graph_header("Betweenness centrality of", in.name, in.rows(), in.nnz());
  report("%s, %s%s%s; %s\n",
         !opt.sources.empty() ? (std::to_string(opt.sources.size()) + " given sources").c_str()
         : opt.k >= 0         ? ("k = " + std::to_string(opt.k) + " sampled sources").c_str()
                              : "exact",
         opt.normalized ? "normalized" : "unnormalized", opt.endpoints ? ", endpoints" : "",
         opt.directed ? "" : ", undirected", execution_text(ex, false).c_str());
  Stopwatch clock;
  BetweennessResult r;
  {
    StatusLine status("betweenness");
    r = visit_graph(in.graph, [&](const auto& g) { return betweenness_centrality(g, opt); });
  }
  const double seconds = clock.seconds();
  if (top > 0 && in.rows() > 0) print_top_table(in, top_k(r.centrality, top), r.centrality, "bc");
  report("%lld sources in %lld batches, time %s\n", static_cast<long long>(r.sources.size()),
         static_cast<long long>(r.batches), format_seconds(seconds).c_str());
  if (output) {
    const std::vector<double>& bc = r.centrality;
    write_vertex_file(
        *output, format, in,
        {{"betweenness",
          [&](std::int64_t v) { return format_value(bc[static_cast<std::size_t>(v)]); }}},
        {{"graph", json_string(in.name)},
         {"sources", std::to_string(r.sources.size())},
         {"normalized", opt.normalized ? "true" : "false"},
         {"endpoints", opt.endpoints ? "true" : "false"}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
