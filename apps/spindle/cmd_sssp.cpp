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
#include "spindle/algorithms/sssp.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

namespace {

template <class T>
int run(const Input& in, std::int64_t source, const std::string& source_id, const SsspOptions& opt,
        const std::optional<std::string>& output) {
  Stopwatch clock;
  SsspResult<T> r;
  try {
    r = visit_graph(in.graph, [&](const auto& g) { return sssp<T>(g, source, opt); });
  } catch (const InvalidArgument& e) {
    // The library names vertices by internal 0-based id; a user knows them by their own ids.
    if (std::string(e.what()).find("negative-weight cycle") == std::string::npos) throw;
    throw InvalidArgument("sssp: a negative-weight cycle is reachable from vertex " + source_id +
                          " of " + in.name + ", so its shortest paths are undefined");
  }
  const double seconds = clock.seconds();
  // A plain array (one download on CUDA), read below and by the formatter on all threads.
  const std::vector<T>& dist = std::as_const(r.distance).values();
  std::int64_t far = source;
  for (std::int64_t v = 0; v < in.rows(); ++v) {
    if (std::isfinite(dist[v]) && dist[v] > dist[far]) far = v;
  }
  std::printf("reached %lld of %lld vertices; farthest %s at distance %s; rounds %lld, time %s\n",
              static_cast<long long>(r.reached), static_cast<long long>(in.rows()),
              in.vertex_id(far).c_str(), format_value(dist[far]).c_str(),
              static_cast<long long>(r.rounds), format_seconds(seconds).c_str());
  if (output) {
    write_vertex_file(*output, in,
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
  p.option(
      "output", "FILE", "",
      "write 'vertex,distance' for every vertex (.csv, .tsv or .json); unreachable vertices have "
      "an empty distance (null in JSON)",
      'o');
  add_exec_flags(p, ExecFlags{true, true, true});
  if (!p.parse(args)) return 0;
  auto source_id = p.get("source");
  if (!source_id) p.fail("--source V is required");
  auto output = p.get("output");
  Execution ex = apply_exec_flags(p, ExecFlags{true, true, true});
  check_vertex_output(p, "output");

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
  std::printf("source %s, %s; %s\n", source_id->c_str(),
              in.is_pattern() ? "no edge values (hop counts)" : "edge values as lengths",
              execution_text(ex).c_str());
  return ex.use_double ? run<double>(in, source, *source_id, opt, output)
                       : run<float>(in, source, *source_id, opt, output);
}

}  // namespace spindle::cli
