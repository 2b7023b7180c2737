// SPDX-License-Identifier: Apache-2.0
// spindle hits FILE: HITS hubs and authorities (networkx.hits's parameters and normalization).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/hits.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {
namespace {

struct Settings {
  HitsOptions opt;
  Execution ex;
  std::int64_t top = 10;
  std::optional<std::string> output;
  VertexFormat format = VertexFormat::Csv;
  bool fail_on_nonconvergence = false;
};

template <class T>
int run(const Input& in, const Settings& s) {
  Stopwatch clock;
  HitsResult<T> r;
  {
    StatusLine status("hits");
    r = visit_graph(in.graph, [&](const auto& g) { return hits<T>(g, s.opt); });
  }
  const double seconds = clock.seconds();
  const std::int64_t n = in.rows();
  const std::vector<T>& hub = std::as_const(r.hubs).values();
  const std::vector<T>& auth = std::as_const(r.authorities).values();
  if (s.top > 0 && n > 0) {
    std::vector<double> score(hub.begin(), hub.end());
    print_top_table(in, top_k(score, s.top), score, "hub");
    score.assign(auth.begin(), auth.end());
    print_top_table(in, top_k(score, s.top), score, "authority");
  }
  report("iterations %d, residual %.3g, converged %s, time %s\n", r.iterations, r.residual,
         r.converged ? "yes" : "no", format_seconds(seconds).c_str());
  std::fflush(stdout);
  if (!r.converged) {
    char what[160];
    std::snprintf(what, sizeof what,
                  "HITS did not converge in %d iterations (residual %.3g, tol %g)", r.iterations,
                  r.residual, s.opt.tol);
    report_nonconvergence(what, s.fail_on_nonconvergence,
                          "scores are approximate: raise --max-iter");
  }
  if (s.output) {
    write_vertex_file(*s.output, s.format, in,
                      {{"hub", [&](std::int64_t v) { return format_value(hub[v]); }},
                       {"authority", [&](std::int64_t v) { return format_value(auth[v]); }}},
                      {{"graph", json_string(in.name)},
                       {"normalized", s.opt.normalized ? "true" : "false"},
                       {"iterations", std::to_string(r.iterations)},
                       {"residual", format_number(r.residual)},
                       {"converged", r.converged ? "true" : "false"}});
    progress("wrote %s", s.output->c_str());
  }
  return 0;
}

}  // namespace

int cmd_hits(const std::vector<std::string>& args) {
  ArgParser p("hits", "FILE [options]",
              "HITS hubs and authorities (networkx.hits): an entry A(u,v) is a link u -> v, a "
              "good hub links to good authorities and a good authority is linked from good hubs. "
              "From uniform hubs h (or --nstart), each iteration computes a = A^T h and h = A a, "
              "scales each to a largest entry of 1, and stops when the L1 change of h is below "
              "--tol. The scores are then divided by their sums (unless --no-normalize). This is "
              "networkx's reference iteration; networkx.hits itself asks ARPACK for the same "
              "dominant singular vectors, which it matches to about 1e-9 in double when the top "
              "singular value is simple (--max-iter counts power iterations here, ARPACK's "
              "iterations there: raise it on graphs that converge slowly).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p, "use edge values as weights (default: structure only, every edge weighs 1)");
  p.option("nstart", "FILE", "",
           "starting hub values from a 'vertex,weight' CSV in the input's own ids (unlisted "
           "vertices 0; normalized to sum 1)");
  p.group("HITS");
  p.option("tol", "T", "1e-8", "stop when the L1 change of the hub vector is below T");
  p.option("max-iter", "N", "100", "iteration limit");
  p.flag("no-normalize", "leave the scores scaled to a largest entry of 1");
  p.flag("fail-on-nonconvergence", "exit with status 1 when the iteration limit is reached");
  p.group("Output");
  p.option("top", "K", "10", "print the K best hubs and authorities (0: none)");
  p.option("output", "FILE", "",
           "write 'vertex,hub,authority' for every vertex (.csv, .tsv or .json; '-': standard "
           "output, with --format)",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, true, true});
  p.section("Examples",
            "  spindle hits web.txt --top 20\n"
            "  spindle hits g.mtx --max-iter 1000 -o hits.csv\n");
  if (!p.parse(args)) return 0;
  Settings s;
  s.opt.tol = p.number("tol", 1e-8, 0.0, 1e300);
  s.opt.max_iter = static_cast<int>(p.integer("max-iter", 100, 1, 1000000000));
  s.opt.normalized = !p.has("no-normalize");
  s.opt.weighted = p.has("weighted");
  s.fail_on_nonconvergence = p.has("fail-on-nonconvergence");
  s.top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  s.output = p.get("output");
  s.ex = apply_exec_flags(p, ExecFlags{true, true, true});
  s.opt.device = s.ex.device;
  s.opt.mxv_kernel = s.ex.desc.mxv_kernel;
  if (s.output) s.format = check_vertex_output(p, "output");
  check_outputs(
      {{"the graph", p.operand_value(0).value_or("")}, {"--nstart", p.get_or("nstart", "")}},
      {{"-o", s.output.value_or("")}});
  const InputOptions io =
      input_options(p, s.opt.weighted ? ValueMode::Weighted : ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, s.ex);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("hits needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  if (auto file = p.get("nstart")) s.opt.nstart = read_vertex_weights(input_path(*file), in);
  print_graph_header("HITS of", in.name, in.rows(), in.nnz());
  report("tol %g, max-iter %d%s; %s\n", s.opt.tol, s.opt.max_iter,
         s.opt.weighted ? ", weighted" : "", execution_text(s.ex).c_str());
  return s.ex.use_double ? run<double>(in, s) : run<float>(in, s);
}

}  // namespace spindle::cli
