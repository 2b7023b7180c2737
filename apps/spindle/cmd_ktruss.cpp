// SPDX-License-Identifier: Apache-2.0
// spindle ktruss FILE --k K: the k-truss (networkx.k_truss) by repeated masked sparse x sparse
// mxm, its edges written in the input's own vertex ids.
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/ktruss.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {
namespace {

// Writes each undirected edge {u, v} of a symmetric graph once, u before v in internal order, as
// CSV lines "u,v" (",<value>" when the graph has values), sorted by u then v.
template <class I, class V>
void write_edges(AtomicFileWriter& f, const Input& in, const Graph<I, V>& g) {
  std::string text;
  for (std::int64_t u = 0; u < g.rows(); ++u) {
    const std::string from = csv_field(in.vertex_id(u)) + ",";
    for (auto p = g.row_ptr()[u]; p < g.row_ptr()[u + 1]; ++p) {
      const std::int64_t v = g.col_idx()[p];
      if (v <= u) continue;
      text += from + csv_field(in.vertex_id(v));
      if constexpr (!is_pattern_v<V>) {
        text += "," + std::to_string(static_cast<long long>(g.values()[p]));
      }
      text += "\n";
    }
    if (text.size() > (std::size_t{1} << 20)) {
      f.write(text);
      text.clear();
    }
  }
  f.write(text);
}

}  // namespace

int cmd_ktruss(const std::vector<std::string>& args) {
  ArgParser p("ktruss", "FILE --k K [options]",
              "The k-truss (networkx.k_truss) of the undirected simple graph underlying FILE: an "
              "edge {u, v} for u != v wherever the file has u -> v or v -> u (directions, weights, "
              "duplicates and self-loops are ignored; networkx refuses directed graphs and "
              "self-loops, so compare with nx.k_truss(G.to_undirected()) after removing them). "
              "The k-truss is the largest subgraph in which every edge lies in at least k - 2 "
              "triangles of that subgraph, with the vertices that keep an edge there (networkx "
              "leaves the others out too, so the edges say which vertices it has). For k = 2 it "
              "is every edge; k below 2 is refused. Edges in fewer than k - 2 triangles are "
              "removed and the triangles counted again until none is: the first count is three "
              "masked sparse x sparse mxm over the plus-pair semiring on the edges oriented by "
              "degree, each later one updates only the edges next to removed ones.");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  p.option("k", "K", "", "the order of the truss, at least 2 (required)");
  add_input_flags(p, "");
  p.group("Output");
  p.option("output", "FILE", "",
           "write the truss's edges as CSV 'u,v', one line per edge with u before v in input "
           "order (a .csv name, or '-': standard output, which then carries the CSV alone)",
           'o');
  p.flag("truss-numbers",
         "also compute every edge's truss number (the largest k whose k-truss holds it; 2 for "
         "an edge in no triangle): -o then writes every edge of the graph as 'u,v,truss'");
  add_spgemm_kernel_flag(p);
  add_exec_flags(p, ExecFlags{true, false, false});
  p.section("Examples",
            "  spindle ktruss karate.mtx --k 4\n"
            "  spindle ktruss web.txt --k 5 -o truss5.csv\n"
            "  spindle ktruss web.txt --k 3 --truss-numbers -o numbers.csv\n");
  if (!p.parse(args)) return 0;
  if (!p.has("k")) p.fail("--k K is required (the order of the truss, at least 2)");
  const std::int64_t k = p.integer("k", 3, 2, std::int64_t{1} << 40);  // beyond any graph
  auto output = p.get("output");
  if (output && *output != "-" && extension_of(*output) != ".csv") {
    p.fail("ktruss writes CSV: -o must end in .csv or be '-' (got '" + *output + "')");
  }
  // Standard output then carries the CSV alone: the report is not printed.
  if (output && *output == "-") set_report_enabled(false);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, false});
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", output.value_or("")}});
  KTrussOptions opt;
  opt.truss_numbers = p.has("truss-numbers");
  opt.device = ex.device;
  opt.kernel = spgemm_kernel_flag(p);

  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("ktruss needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  const std::string title = std::to_string(k) + "-truss of";
  print_graph_header(title.c_str(), in.name, in.rows(), in.nnz());
  Stopwatch clock;
  visit_graph(in.graph, [&](const auto& g) {
    using I = typename std::decay_t<decltype(g)>::index_type;
    KTrussResult<I> r;
    {
      StatusLine status("ktruss");
      r = k_truss(g, k, opt);
    }
    const double seconds = clock.seconds();
    report(
        "%lld-truss: %lld edges on %lld vertices, of %lld undirected edges; %lld triangle "
        "count rounds, time %s\n",
        static_cast<long long>(k), static_cast<long long>(r.edges),
        static_cast<long long>(r.vertices.size()), static_cast<long long>(r.input_edges),
        static_cast<long long>(r.rounds), format_seconds(seconds).c_str());
    if (opt.truss_numbers) {
      report("largest truss number %lld\n", static_cast<long long>(r.max_truss));
    }
    if (!output) return;
    AtomicFileWriter f(*output);
    if (opt.truss_numbers) {
      f.write("u,v,truss\n");
      write_edges(f, in, r.truss_numbers);
    } else {
      f.write("u,v\n");
      write_edges(f, in, r.truss);
    }
    f.commit();
    progress("wrote %s", output->c_str());
  });
  return 0;
}

}  // namespace spindle::cli
