// SPDX-License-Identifier: Apache-2.0
// spindle bfs FILE --source V: BFS levels (and parents) by masked vxm over the boolean semiring.
#include <cmath>
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/bfs.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

int cmd_bfs(const std::vector<std::string>& args) {
  ArgParser p("bfs", "FILE --source V [options]",
              "Breadth-first search along out-edges from one vertex: the level (hops from the "
              "source) of every vertex, and a BFS tree. Each level is one masked vxm over the "
              "boolean semiring with the complement of the visited set as the mask.");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.option("source", "V", "",
           "start vertex, in the input's own ids (1-based for .mtx, the label for edge lists); "
           "required");
  p.group("Output");
  p.option(
      "output", "FILE", "",
      "write 'vertex,level,parent' for every vertex (.csv, .tsv or .json; '-': standard output, "
      "with --format); unreachable vertices have empty fields (null in JSON); the parent is the "
      "vertex with the smallest "
      "internal id (a .mtx file's index; an edge list's order of first appearance) on "
      "the previous level with an edge to it, the source is its own parent",
      'o');
  add_vertex_format_flag(p);
  p.option("top", "K", "0",
           "also print the K farthest reachable vertices and their levels (0: none)");
  add_exec_flags(p, ExecFlags{true, false, true});
  p.section("Examples",
            "  spindle bfs roads.mtx --source 1\n"
            "  spindle bfs web.txt --source 4242 --undirected -o levels.csv\n"
            "  spindle bfs social.csv --source alice --top 10\n");
  if (!p.parse(args)) return 0;
  auto source_id = p.get("source");
  if (!source_id) p.fail("--source V is required");
  auto output = p.get("output");
  const std::int64_t top = p.integer("top", 0, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, true});
  const VertexFormat format = output ? check_vertex_output(p, "output") : VertexFormat::Csv;
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", output.value_or("")}});

  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, ex, SemiringKind::AnyPair);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("bfs needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  const std::int64_t source = in.find_vertex(*source_id, "--source");
  BfsOptions opt;
  opt.parents = output.has_value();
  opt.device = ex.device;
  opt.mxv_kernel = ex.desc.mxv_kernel;

  print_graph_header("BFS on", in.name, in.rows(), in.nnz());
  report("source %s; %s\n", printable(*source_id).c_str(), execution_text(ex, false).c_str());
  Stopwatch clock;
  BfsResult r;
  {
    StatusLine status("bfs");
    r = visit_graph(in.graph, [&](const auto& g) { return bfs(g, source, opt); });
  }
  const double seconds = clock.seconds();

  std::vector<std::int64_t> per_level(static_cast<std::size_t>(r.depth), 0);
  for (auto l : r.level) {
    if (l >= 0) ++per_level[static_cast<std::size_t>(l)];
  }
  report("%6s  %12s\n", "level", "vertices");
  for (std::size_t l = 0; l < per_level.size(); ++l) {
    report("%6zu  %12lld\n", l, static_cast<long long>(per_level[l]));
  }
  if (top > 0) {
    std::vector<double> level(r.level.size());
    for (std::size_t v = 0; v < level.size(); ++v) {
      level[v] = r.level[v] < 0 ? INFINITY : static_cast<double>(r.level[v]);
    }
    const auto order = top_k_where(level, top, [](std::int64_t) { return true; });
    if (!order.empty()) print_top_table(in, order, level, "level");
  }
  report("reached %lld of %lld vertices in %lld levels, time %s\n",
         static_cast<long long>(r.reached), static_cast<long long>(in.rows()),
         static_cast<long long>(r.depth), format_seconds(seconds).c_str());
  if (output) {
    std::vector<VertexColumn> cols = {
        {"level",
         [&](std::int64_t v) {
           auto l = r.level[static_cast<std::size_t>(v)];
           return l < 0 ? std::string() : std::to_string(l);
         }},
        {"parent",
         [&](std::int64_t v) {
           auto q = r.parent[static_cast<std::size_t>(v)];
           return q < 0 ? std::string() : in.vertex_id(q);
         },
         true},
    };
    write_vertex_file(*output, format, in, cols,
                      {{"graph", json_string(in.name)},
                       {"source", json_string(*source_id)},
                       {"reached", std::to_string(r.reached)},
                       {"levels", std::to_string(r.depth)}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
