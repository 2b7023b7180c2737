// SPDX-License-Identifier: Apache-2.0
// spindle katz FILE: Katz centrality (networkx.katz_centrality's parameters and stop rule).
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
#include "spindle/algorithms/katz.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {
namespace {

struct Settings {
  KatzOptions opt;
  Execution ex;
  std::int64_t top = 10;
  std::optional<std::string> output;
  VertexFormat format = VertexFormat::Csv;
  bool fail_on_nonconvergence = false;
};

template <class T>
int run(const Input& in, const Settings& s) {
  Stopwatch clock;
  KatzResult<T> r;
  {
    StatusLine status("katz");
    r = visit_graph(in.graph, [&](const auto& g) { return katz_centrality<T>(g, s.opt); });
  }
  const double seconds = clock.seconds();
  const std::int64_t n = in.rows();
  const std::vector<T>& x = std::as_const(r.centrality).values();
  if (s.top > 0 && n > 0) {
    std::vector<double> score(x.begin(), x.end());
    print_top_table(in, top_k(score, s.top), score, "katz");
  }
  report("iterations %d, residual %.3g (stops below n*tol = %.3g), converged %s, time %s\n",
         r.iterations, r.residual, static_cast<double>(n) * s.opt.tol, r.converged ? "yes" : "no",
         format_seconds(seconds).c_str());
  std::fflush(stdout);
  if (!r.converged) {
    char what[200];
    std::snprintf(what, sizeof what,
                  "Katz centrality did not converge in %d iterations (residual %.3g, tol %g x n); "
                  "networkx raises PowerIterationFailedConvergence here",
                  r.iterations, r.residual, s.opt.tol);
    report_nonconvergence(what, s.fail_on_nonconvergence,
                          "the values are the last iterate, unnormalized: lower --alpha below 1 / "
                          "the spectral radius, or raise --max-iter");
  }
  if (s.output) {
    write_vertex_file(*s.output, s.format, in,
                      {{"katz", [&](std::int64_t v) { return format_value(x[v]); }}},
                      {{"graph", json_string(in.name)},
                       {"alpha", format_number(s.opt.alpha)},
                       {"normalized", s.opt.normalized ? "true" : "false"},
                       {"iterations", std::to_string(r.iterations)},
                       {"residual", format_number(r.residual)},
                       {"converged", r.converged ? "true" : "false"}});
    progress("wrote %s", s.output->c_str());
  }
  return 0;
}

}  // namespace

int cmd_katz(const std::vector<std::string>& args) {
  ArgParser p("katz", "FILE [options]",
              "Katz centrality (networkx.katz_centrality): an entry A(u,v) is an edge u -> v and "
              "a vertex gains from its in-neighbors. From x = 0, each iteration computes "
              "x' = alpha * A^T x + beta and stops when the L1 change is below n * tol; x is "
              "then divided by its Euclidean norm (unless --no-normalize). It converges when "
              "alpha < 1 / (the spectral radius of A); otherwise it stops at --max-iter with a "
              "warning (networkx raises PowerIterationFailedConvergence).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", true);
  add_input_flags(p,
                  "use edge values as weights (networkx's weight='weight'; default: every "
                  "edge weighs 1, networkx's weight=None)");
  p.group("Katz");
  p.option("alpha", "A", "0.1", "attenuation factor");
  p.option("beta", "B", "1", "the weight every vertex gets for free");
  p.option("beta-file", "FILE", "",
           "per-vertex beta from a 'vertex,weight' CSV in the input's own ids (unlisted "
           "vertices 0); replaces --beta");
  p.option("tol", "T", "1e-6", "stop when the L1 change is below n*T");
  p.option("max-iter", "N", "1000", "iteration limit");
  p.flag("no-normalize", "leave x unnormalized");
  p.flag("fail-on-nonconvergence", "exit with status 1 when the iteration limit is reached");
  p.group("Output");
  p.option("top", "K", "10", "print the K most central vertices (0: none)");
  p.option("output", "FILE", "",
           "write 'vertex,katz' for every vertex (.csv, .tsv or .json; '-': standard output, "
           "with --format)",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, true, true});
  p.section("Examples",
            "  spindle katz karate.mtx\n"
            "  spindle katz web.txt --alpha 0.005 -o katz.csv\n");
  if (!p.parse(args)) return 0;
  Settings s;
  s.opt.alpha = p.number("alpha", 0.1, -1e300, 1e300);
  s.opt.beta = p.number("beta", 1.0, -1e300, 1e300);
  s.opt.tol = p.number("tol", 1e-6, 0.0, 1e300);
  s.opt.max_iter = static_cast<int>(p.integer("max-iter", 1000, 0, 1000000000));
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
      {{"the graph", p.operand_value(0).value_or("")}, {"--beta-file", p.get_or("beta-file", "")}},
      {{"-o", s.output.value_or("")}});
  const InputOptions io =
      input_options(p, s.opt.weighted ? ValueMode::Weighted : ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, s.ex);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("katz needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  if (auto file = p.get("beta-file")) {
    s.opt.beta_per_vertex = read_vertex_weights(input_path(*file), in);
  }
  print_graph_header("Katz centrality of", in.name, in.rows(), in.nnz());
  report("alpha %g, beta %s, tol %g, max-iter %d%s; %s\n", s.opt.alpha,
         p.has("beta-file") ? p.get_or("beta-file", "").c_str() : format_number(s.opt.beta).c_str(),
         s.opt.tol, s.opt.max_iter, s.opt.weighted ? ", weighted" : "",
         execution_text(s.ex).c_str());
  return s.ex.use_double ? run<double>(in, s) : run<float>(in, s);
}

}  // namespace spindle::cli
