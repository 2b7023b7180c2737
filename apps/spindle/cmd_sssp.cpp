// SPDX-License-Identifier: Apache-2.0
// spindle sssp FILE --source V: shortest path distances by min-plus relaxation (Bellman-Ford).
#include <cmath>
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/sssp.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

namespace {

struct Settings {
  std::optional<std::string> output;
  VertexFormat format = VertexFormat::Csv;
  std::int64_t top = 10;
};

template <class T>
int run(const Input& in, std::int64_t source, const std::string& source_id, const SsspOptions& opt,
        const Settings& s) {
  const auto& output = s.output;
  Stopwatch clock;
  SsspResult<T> r;
  try {
    StatusLine status("sssp");
    r = visit_graph(in.graph, [&](const auto& g) { return sssp<T>(g, source, opt); });
  } catch (const InvalidArgument& e) {
    // The library names vertices by internal 0-based id; a user knows them by their own ids.
    const std::string what = e.what();
    if (what.find("negative-weight cycle") != std::string::npos) {
      throw InvalidArgument("sssp: a negative-weight cycle is reachable from vertex " + source_id +
                            " of " + in.name + ", so its shortest paths are undefined");
    }
    const std::size_t at = what.find(" to vertex ");
    const std::size_t over = what.find(" overflows ");
    if (at == std::string::npos || over == std::string::npos) throw;
    const std::int64_t v = std::stoll(what.substr(at + 11));
    throw InvalidArgument("sssp: the distance from vertex " + source_id + " to vertex " +
                          in.vertex_id(v) + " of " + in.name + what.substr(over) +
                          (sizeof(T) == 4 ? " (--precision double)" : ""));
  }
  const double seconds = clock.seconds();
  // A plain array (one download on CUDA), read below and by the formatter on all threads.
  const std::vector<T>& dist = std::as_const(r.distance).values();
  if (s.top > 0) {
    std::vector<double> score(dist.begin(), dist.end());
    const auto order = top_k_where(score, s.top, [](std::int64_t) { return true; });
    if (!order.empty()) print_top_table(in, order, score, "distance");
  }
  std::int64_t far = source;
  for (std::int64_t v = 0; v < in.rows(); ++v) {
    if (std::isfinite(dist[v]) && dist[v] > dist[far]) far = v;
  }
  report("reached %lld of %lld vertices; farthest %s at distance %s; rounds %lld, time %s\n",
         static_cast<long long>(r.reached), static_cast<long long>(in.rows()),
         printable(in.vertex_id(far)).c_str(), format_value(dist[far]).c_str(),
         static_cast<long long>(r.rounds), format_seconds(seconds).c_str());
  if (output) {
    write_vertex_file(*output, s.format, in,
                      {{"distance",
                        [&](std::int64_t v) {
                          return std::isfinite(dist[v]) ? format_value(dist[v]) : std::string();
                        }}},
                      {{"graph", json_string(in.name)},
                       {"source", json_string(source_id)},
                       {"reached", std::to_string(r.reached)}});
    progress("wrote %s", output->c_str());
  }
  return 0;
}

}  // namespace

int cmd_sssp(const std::vector<std::string>& args) {
  ArgParser p("sssp", "FILE --source V [options]",
              "Single-source shortest path lengths along out-edges, weighted by the edge values "
              "(a file without values gives hop counts). Bellman-Ford style: each round relaxes "
              "d <- min(d, d min.+ A) from the vertices whose distance changed, until nothing "
              "changes. Negative weights are allowed; a negative cycle reachable from the "
              "source is an error.");
  p.operand("FILE", "graph file: .mtx or an edge list with a weight column", true);
  add_input_flags(p, "");
  p.option("source", "V", "", "start vertex, in the input's own ids (1-based for .mtx); required");
  p.group("Output");
  p.option("top", "K", "10",
           "print the K farthest reachable vertices and their distances (0: none)");
  p.option("output", "FILE", "",
           "write 'vertex,distance' for every vertex (.csv, .tsv or .json; '-': standard output, "
           "with --format); unreachable vertices have an empty distance (null in JSON)",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, true, true});
  p.section("Examples",
            "  spindle sssp roads.mtx --source 1\n"
            "  spindle sssp flights.csv --source LAX --top 5 -o dist.json\n");
  if (!p.parse(args)) return 0;
  auto source_id = p.get("source");
  if (!source_id) p.fail("--source V is required");
  Settings s;
  s.output = p.get("output");
  s.top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  Execution ex = apply_exec_flags(p, ExecFlags{true, true, true});
  if (s.output) s.format = check_vertex_output(p, "output");
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", s.output.value_or("")}});

  const InputOptions io = input_options(p, ValueMode::AsFile);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, ex, SemiringKind::MinPlus);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("sssp needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  const std::int64_t source = in.find_vertex(*source_id, "--source");
  SsspOptions opt;
  opt.device = ex.device;
  opt.mxv_kernel = ex.desc.mxv_kernel;
  print_graph_header("SSSP on", in.name, in.rows(), in.nnz());
  report("source %s, %s; %s\n", printable(*source_id).c_str(),
         in.is_pattern() ? "no edge values (hop counts)" : "edge values as lengths",
         execution_text(ex).c_str());
  return ex.use_double ? run<double>(in, source, *source_id, opt, s)
                       : run<float>(in, source, *source_id, opt, s);
}

}  // namespace spindle::cli
