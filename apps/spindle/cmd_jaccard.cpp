// SPDX-License-Identifier: Apache-2.0
// spindle jaccard FILE [--pairs FILE]: Jaccard coefficients of vertex pairs.
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/jaccard.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/atomic_file.hpp"
#include "spindle/loaders/text_file.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {
int cmd_jaccard(const std::vector<std::string>& args) {
  ArgParser p("jaccard", "FILE [--pairs FILE] [options]",
              "Jaccard coefficients (networkx.jaccard_coefficient): for a pair (u, v), "
              "|N(u) & N(v)| / |N(u) | N(v)|, 0 when both have no neighbors, on an undirected "
              "graph (a symmetric .mtx file, or --undirected; a vertex with a self-loop is its "
              "own neighbor). By default for every edge {u, v} once (u before v in internal "
              "order, self-loops skipped); with --pairs, for the pairs listed. Batches of "
              "second vertices run as two SpMMs over dense neighbor indicators (cost grows with "
              "the number of distinct second vertices times the edges).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "");
  p.option("pairs", "FILE", "",
           "pairs to score, one 'u v' or 'u,v' per line in the input's own ids ('#' comments)");
  p.group("Output");
  p.option("output", "FILE", "",
           "write 'u,v,jaccard' as CSV for every pair in the order given (a .csv name, or '-': "
           "standard output, which then carries the CSV alone)",
           'o');
  p.option("top", "K", "10", "print the first K pairs (0: none)");
  add_exec_flags(p, ExecFlags{true, false, false});
  p.section("Examples",
            "  spindle jaccard karate.mtx -o jaccard.csv\n"
            "  spindle jaccard friends.csv --undirected --pairs candidates.txt\n");
  if (!p.parse(args)) return 0;
  auto output = p.get("output");
  if (output && *output != "-" && extension_of(*output) != ".csv") {
    p.fail("jaccard writes CSV: -o must end in .csv or be '-' (got '" + *output + "')");
  }
  // Standard output then carries the CSV alone: the report is not printed.
  if (output && *output == "-") set_report_enabled(false);
  const std::int64_t top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, false, false});
  check_outputs(
      {{"the graph", p.operand_value(0).value_or("")}, {"--pairs", p.get_or("pairs", "")}},
      {{"-o", output.value_or("")}});
  const InputOptions io = input_options(p, ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("jaccard needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  if (auto file = p.get("pairs")) {
    std::istringstream lines(read_text_file(input_path(*file)));
    std::string line;
    std::int64_t number = 0;
    while (std::getline(lines, line)) {
      ++number;
      for (char& c : line) {
        if (c == ',' || c == '\t' || c == '\r') c = ' ';
      }
      std::istringstream words(line);
      std::string u, v, extra;
      if (!(words >> u) || u[0] == '#') continue;
      // A third word may only start a comment.
      if (!(words >> v) || ((words >> extra) && extra[0] != '#')) {
        throw ParseError(*file, number, "expected 'u v', got '" + line + "'");
      }
      pairs.emplace_back(in.find_vertex(u, "--pairs"), in.find_vertex(v, "--pairs"));
    }
  } else {
    pairs = visit_graph(in.graph, [](const auto& g) { return edge_pairs(g); });
  }
  JaccardOptions opt;
  opt.device = ex.device;
  print_graph_header("Jaccard coefficients on", in.name, in.rows(), in.nnz());
  report("%zu pairs%s; %s\n", pairs.size(), p.has("pairs") ? "" : " (every edge once)",
         execution_text(ex, false).c_str());
  Stopwatch clock;
  std::vector<double> j;
  {
    StatusLine status("jaccard");
    j = visit_graph(in.graph, [&](const auto& g) { return jaccard_coefficient(g, pairs, opt); });
  }
  const double seconds = clock.seconds();
  for (std::size_t i = 0; i < pairs.size() && static_cast<std::int64_t>(i) < top; ++i) {
    report("%s  %s  %s\n", printable(in.vertex_id(pairs[i].first)).c_str(),
           printable(in.vertex_id(pairs[i].second)).c_str(), format_number(j[i]).c_str());
  }
  report("%zu pairs, time %s\n", pairs.size(), format_seconds(seconds).c_str());
  if (output) {
    std::string text = "u,v,jaccard\n";
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      text += csv_field(in.vertex_id(pairs[i].first)) + "," +
              csv_field(in.vertex_id(pairs[i].second)) + "," + format_value(j[i]) + "\n";
    }
    AtomicFileWriter f(*output);
    f.write(text);
    f.commit();
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace spindle::cli
