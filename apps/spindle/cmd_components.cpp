// SPDX-License-Identifier: Apache-2.0
// spindle components FILE [--strong]: weakly (FastSV) or strongly connected components.
#include <algorithm>
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
#include "spindle/algorithms/components.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

int cmd_components(const std::vector<std::string>& args) {
  ArgParser p("components", "FILE [--strong] [options]",
              "Connected components. By default the weakly connected ones: two vertices share a "
              "component when a path joins them ignoring edge directions (on an undirected "
              "graph, its connected components; networkx.weakly_connected_components / "
              "connected_components). With --strong, the strongly connected ones: each reaches "
              "the other along out-edges (networkx.strongly_connected_components). Edge values "
              "are ignored; self-loops are harmless. A component is named by its vertex with "
              "the smallest internal id (a .mtx file's index; an edge list's order of first "
              "appearance).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.flag("strong", "strongly connected components instead of weakly connected ones");
  p.group("Output");
  p.option("output", "FILE", "",
           "write 'vertex,component' for every vertex (.csv, .tsv or .json; '-': standard "
           "output, with --format); the component is the id of its smallest vertex",
           'o');
  add_vertex_format_flag(p);
  p.option("top", "K", "5", "print the K largest components and their sizes (0: none)");
  add_exec_flags(p, ExecFlags{true, false, true});
  p.section("Examples",
            "  spindle components roads.mtx\n"
            "  spindle components web.txt --strong -o scc.csv\n");
  if (!p.parse(args)) return 0;
  const bool strong = p.has("strong");
  auto output = p.get("output");
  const std::int64_t top = p.integer("top", 5, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, true});
  const VertexFormat format = output ? check_vertex_output(p, "output") : VertexFormat::Csv;
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", output.value_or("")}});

  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, ex, SemiringKind::MinTimes);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("components needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  ComponentsOptions opt;
  opt.device = ex.device;
  opt.mxv_kernel = ex.desc.mxv_kernel;

  print_graph_header(strong ? "Strongly connected components of" : "Weakly connected components of",
                     in.name, in.rows(), in.nnz());
  report("%s\n", execution_text(ex, false).c_str());
  Stopwatch clock;
  ComponentsResult r;
  {
    StatusLine status("components");
    r = visit_graph(in.graph, [&](const auto& g) {
      return strong ? strongly_connected_components(g, opt) : weakly_connected_components(g, opt);
    });
  }
  const double seconds = clock.seconds();
  const std::int64_t n = in.rows();
  if (top > 0 && n > 0) {
    std::vector<std::int64_t> size(static_cast<std::size_t>(n), 0);
    for (auto l : r.label) ++size[static_cast<std::size_t>(l)];
    std::vector<std::int64_t> roots;
    for (std::int64_t v = 0; v < n; ++v) {
      if (size[static_cast<std::size_t>(v)] > 0) roots.push_back(v);
    }
    const std::size_t k = std::min(roots.size(), static_cast<std::size_t>(top));
    std::partial_sort(roots.begin(), roots.begin() + static_cast<std::ptrdiff_t>(k), roots.end(),
                      [&](std::int64_t a, std::int64_t b) {
                        const auto sa = size[static_cast<std::size_t>(a)];
                        const auto sb = size[static_cast<std::size_t>(b)];
                        return sa != sb ? sa > sb : a < b;
                      });
    report("%12s  %s\n", "vertices", "component (smallest vertex)");
    for (std::size_t i = 0; i < k; ++i) {
      report("%12lld  %s\n", static_cast<long long>(size[static_cast<std::size_t>(roots[i])]),
             printable(in.vertex_id(roots[i])).c_str());
    }
  }
  report("%lld components, %lld rounds, time %s\n", static_cast<long long>(r.count),
         static_cast<long long>(r.rounds), format_seconds(seconds).c_str());
  if (output) {
    std::vector<VertexColumn> cols = {
        {"component",
         [&](std::int64_t v) { return in.vertex_id(r.label[static_cast<std::size_t>(v)]); }, true},
    };
    write_vertex_file(*output, format, in, cols,
                      {{"graph", json_string(in.name)},
                       {"kind", json_string(strong ? "strong" : "weak")},
                       {"components", std::to_string(r.count)}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
