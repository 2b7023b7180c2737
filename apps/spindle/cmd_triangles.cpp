// SPDX-License-Identifier: Apache-2.0
// spindle triangles FILE: triangle counts (total, per vertex) and local clustering coefficients
// by masked sparse x sparse mxm.
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

int cmd_triangles(const std::vector<std::string>& args) {
  ArgParser p("triangles", "FILE [options]",
              "Counts the triangles of the undirected simple graph underlying FILE: an edge "
              "{u, v} for u != v wherever the file has u -> v or v -> u (directions, weights, "
              "duplicates and self-loops are ignored), as networkx's nx.triangles and "
              "nx.clustering see a graph (a directed one after to_undirected()). The count is "
              "one masked sparse x sparse mxm over the plus-pair semiring, C<L> = L L^T with L "
              "the strictly lower triangle, its vertices ordered by degree on skewed graphs "
              "(per vertex also C<L> = L^T L).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.group("Output");
  p.flag("per-vertex", "also count the triangles through each vertex (nx.triangles)");
  p.flag("clustering",
         "also compute each vertex's local clustering coefficient 2 t(v) / (d(v) (d(v) - 1)), "
         "d(v) its number of distinct neighbours other than itself, 0 when d(v) < 2 "
         "(nx.clustering, unweighted); implies --per-vertex");
  p.option("output", "FILE", "",
           "write 'vertex,triangles[,clustering]' for every vertex (.csv, .tsv or .json; '-': "
           "standard output, with --format); implies --per-vertex",
           'o');
  add_vertex_format_flag(p);
  p.option("top", "K", "10",
           "with per-vertex counts, print the K vertices in the most triangles (0: none)");
  add_spgemm_kernel_flag(p);
  add_exec_flags(p, ExecFlags{true, false, false});
  p.section("Examples",
            "  spindle triangles karate.mtx\n"
            "  spindle triangles web.txt --clustering -o clustering.csv\n");
  if (!p.parse(args)) return 0;
  auto output = p.get("output");
  const std::int64_t top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, false});
  const VertexFormat format = output ? check_vertex_output(p, "output") : VertexFormat::Csv;
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", output.value_or("")}});
  TriangleOptions opt;
  opt.clustering = p.has("clustering");
  opt.per_vertex = opt.clustering || p.has("per-vertex") || output.has_value();
  opt.device = ex.device;
  opt.kernel = spgemm_kernel_flag(p);

  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("triangles needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  print_graph_header("Triangles of", in.name, in.rows(), in.nnz());
  Stopwatch clock;
  TriangleResult r;
  {
    StatusLine status("triangles");
    r = visit_graph(in.graph, [&](const auto& g) { return triangles(g, opt); });
  }
  const double seconds = clock.seconds();
  if (opt.per_vertex && top > 0) {
    std::vector<double> score(r.per_vertex.begin(), r.per_vertex.end());
    const auto order = top_k_where(score, top, [](std::int64_t) { return true; });
    if (!order.empty()) print_top_table(in, order, score, "triangles");
  }
  report("%lld triangles over %lld undirected edges, time %s\n", static_cast<long long>(r.total),
         static_cast<long long>(r.edges), format_seconds(seconds).c_str());
  if (output) {
    std::vector<VertexColumn> cols = {
        {"triangles",
         [&](std::int64_t v) { return std::to_string(r.per_vertex[static_cast<std::size_t>(v)]); }},
    };
    if (opt.clustering) {
      cols.push_back({"clustering", [&](std::int64_t v) {
                        return format_value(r.clustering[static_cast<std::size_t>(v)]);
                      }});
    }
    write_vertex_file(*output, format, in, cols,
                      {{"graph", json_string(in.name)},
                       {"triangles", std::to_string(r.total)},
                       {"edges", std::to_string(r.edges)}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
