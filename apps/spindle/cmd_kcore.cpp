// SPDX-License-Identifier: Apache-2.0
// spindle kcore FILE [--directed]: core numbers by level-synchronous peeling.
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/kcore.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

int cmd_kcore(const std::vector<std::string>& args) {
  ArgParser p("kcore", "FILE [--directed] [options]",
              "Core numbers (networkx.core_number): the core number of a vertex is the largest k "
              "such that it belongs to a subgraph in which every vertex has at least k "
              "neighbors. By default the graph is undirected: it must be stored in both "
              "directions (a symmetric .mtx file, or --undirected), and a vertex's degree is its "
              "number of neighbors. With --directed, the degree is in-degree + out-degree, a "
              "neighbor joined both ways counting twice (networkx on a DiGraph). Self-loops are "
              "refused, as networkx refuses them. Edge values are ignored.");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.flag("directed", "directed core numbers: degree = in-degree + out-degree");
  p.group("Output");
  p.option("output", "FILE", "",
           "write 'vertex,core' for every vertex (.csv, .tsv or .json; '-': standard output, "
           "with --format)",
           'o');
  add_vertex_format_flag(p);
  p.option("top", "K", "10", "print the K vertices of highest core number (0: none)");
  add_exec_flags(p, ExecFlags{true, false, true});
  p.section("Examples",
            "  spindle kcore karate.mtx\n"
            "  spindle kcore web.txt --undirected -o cores.csv\n"
            "  spindle kcore follows.csv --directed --top 20\n");
  if (!p.parse(args)) return 0;
  const bool directed = p.has("directed");
  auto output = p.get("output");
  const std::int64_t top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, true});
  const VertexFormat format = output ? check_vertex_output(p, "output") : VertexFormat::Csv;
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", output.value_or("")}});

  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, ex, SemiringKind::PlusTimes);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("kcore needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  KCoreOptions opt;
  opt.directed = directed;
  opt.device = ex.device;
  opt.mxv_kernel = ex.desc.mxv_kernel;

  print_graph_header(directed ? "Directed core numbers of" : "Core numbers of", in.name, in.rows(),
                     in.nnz());
  report("%s\n", execution_text(ex, false).c_str());
  Stopwatch clock;
  KCoreResult r;
  {
    StatusLine status("kcore");
    r = visit_graph(in.graph, [&](const auto& g) { return core_numbers(g, opt); });
  }
  const double seconds = clock.seconds();
  if (top > 0 && in.rows() > 0) {
    std::vector<double> score(r.core.begin(), r.core.end());
    print_top_table(in, top_k(score, top), score, "core");
  }
  report("largest core number %lld, %lld peeling steps, time %s\n",
         static_cast<long long>(r.max_core), static_cast<long long>(r.steps),
         format_seconds(seconds).c_str());
  if (output) {
    const std::vector<std::int64_t>& core = r.core;
    write_vertex_file(
        *output, format, in,
        {{"core",
          [&](std::int64_t v) { return std::to_string(core[static_cast<std::size_t>(v)]); }}},
        {{"graph", json_string(in.name)},
         {"directed", directed ? "true" : "false"},
         {"max_core", std::to_string(r.max_core)}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
