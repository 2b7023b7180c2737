// SPDX-License-Identifier: Apache-2.0
// spindle power-iteration [FILE]: dominant eigenpair of the adjacency, or networkx's
// eigenvector centrality with --centrality.
#include <cstdio>
#include <string>
#include <utility>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

namespace {

constexpr const char* kSemantics =
    "  plain (default): M = A, x0 = 1/sqrt(n), x <- (M + s*I) x / |(M + s*I) x|_2,\n"
    "    stop when |x_k - x_(k-1)|_1 < tol.\n"
    "  --centrality: networkx.eigenvector_centrality exactly: M = A^T (a vertex is\n"
    "    central when its in-neighbors are), x0 = 1/n, shift s = 1 (iterates on\n"
    "    A^T + I), stop when sum |x_k - x_(k-1)| < n*tol.\n"
    "  The eigenvalue is the Rayleigh quotient x^T M x with the shift removed; the\n"
    "  residual is |M x - lambda x|_2. A shift s > 0 separates lambda from -lambda\n"
    "  (bipartite graphs, where the plain iteration oscillates) without changing\n"
    "  the eigenvectors.\n";

struct Settings {
  PowerIterationOptions opt;
  Execution ex;
  std::int64_t top = 10;
  std::optional<std::string> output;
  VertexFormat format = VertexFormat::Csv;
  bool fail_on_nonconvergence = false;
};

/// The shift the iteration uses: the given one, else 1 in centrality mode (networkx) and 0.
double effective_shift(const PowerIterationOptions& o) {
  return o.shift.value_or(o.centrality ? 1.0 : 0.0);
}

template <class T>
int run(const Input& in, Settings& s) {
  Stopwatch clock;
  PowerIterationResult<T> r;
  {
    StatusLine status("power iteration");
    PowerIterationOptions opt = s.opt;
    opt.on_iteration = [&status](int k, double change) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "iteration %d, change %.3g", k, change);
      status.set(buf);
    };
    r = visit_graph(in.graph, [&](const auto& g) { return power_iteration<T>(g, opt); });
  }
  const double seconds = clock.seconds();
  const std::int64_t n = in.rows();
  const double shift = effective_shift(s.opt);
  if (n == 0) {
    throw Error("power iteration: " + in.name +
                " has no vertices, so there is no eigenvector to report (an empty graph is read "
                "only with --allow-empty)");
  }
  if (r.vanished) {
    // All zeros is no eigenvector: refuse rather than print or write it as one.
    throw Error("power iteration: the iterate became zero (M = " +
                std::string(s.opt.centrality ? "A^T" : "A") +
                " is nilpotent on the start vector: the graph has no cycles, or no edges), so "
                "there is no dominant eigenvector to report; --shift 1 iterates on M + I");
  }
  std::vector<double> score(static_cast<std::size_t>(n));
  for (std::int64_t v = 0; v < n; ++v) score[static_cast<std::size_t>(v)] = r.vector[v];

  if (s.top > 0 && n > 0) {
    print_top_table(in, top_k(score, s.top), score,
                    s.opt.centrality ? "centrality" : "eigenvector");
  }
  // The stop test looks at the last change of the iterate; the residual |Mx - lambda x| says how
  // good an eigenpair the result is. Both are shown, named.
  report(
      "eigenvalue %.10g, residual |Mx - lambda x| %.3g, last change %.3g (tol %g%s), iterations "
      "%d, converged %s, time %s\n",
      r.eigenvalue, r.residual, r.last_change, s.opt.tol, s.opt.centrality ? " x n" : "",
      r.iterations, r.converged ? "yes" : "no", format_seconds(seconds).c_str());
  std::fflush(stdout);
  if (!r.converged) {
    char what[160];
    std::snprintf(what, sizeof what,
                  "power iteration did not converge in %d iterations (last change %.3g, tol %g%s)",
                  r.iterations, r.last_change, s.opt.tol, s.opt.centrality ? " x n" : "");
    report_nonconvergence(what, s.fail_on_nonconvergence,
                          shift == 0.0
                              ? "try --shift 1 (in case of oscillation) or a larger --max-iter"
                              : "try a larger --max-iter");
  }
  if (s.output) {
    std::vector<std::pair<std::string, std::string>> meta = {
        {"graph", json_string(in.name)},
        {"n", std::to_string(n)},
        {"mode", json_string(s.opt.centrality ? "centrality" : "plain")},
        {"eigenvalue", format_number(r.eigenvalue)},
        {"residual", format_number(r.residual)},
        {"iterations", std::to_string(r.iterations)},
        {"converged", r.converged ? "true" : "false"},
    };
    const char* name = s.opt.centrality ? "centrality" : "value";
    // A plain array (one download on CUDA): the formatter runs on all threads.
    const std::vector<T>& x = std::as_const(r.vector).values();
    write_vertex_file(*s.output, s.format, in,
                      {{name, [&](std::int64_t v) { return format_value(x[v]); }}}, meta);
    progress("wrote %s", s.output->c_str());
  }
  return 0;
}

}  // namespace

int cmd_power_iteration(const std::vector<std::string>& args) {
  ArgParser p("power-iteration", "[FILE] [options]",
              "Finds the dominant eigenvalue and eigenvector of the graph's adjacency matrix by "
              "power iteration, or eigenvector centrality with --centrality. Without FILE it "
              "runs on the built-in R-MAT graph (scale 16, edge factor 16, seed 1).");
  p.operand("FILE", "graph file: .mtx or an edge list (see 'spindle pagerank --help')", false);
  add_input_flags(p, "use the matrix's values instead of its structure (every entry 1)");
  p.group("Iteration");
  p.flag("centrality", "networkx eigenvector_centrality semantics (see below)");
  p.option("tol", "T", "1e-6",
           "stop when the change between iterates is below T (n*T with --centrality)");
  p.option("max-iter", "N", "100", "iteration limit");
  p.option("shift", "S", "0; 1 with --centrality", "iterate on M + S*I");
  p.flag("fail-on-nonconvergence", "exit with status 1 when the iteration limit is reached");
  p.group("Output");
  p.option("top", "K", "10", "print the K vertices with the largest entries (0: none)");
  p.option("output", "FILE", "",
           "write every vertex's entry of the (L2-normalized) eigenvector as .csv, .tsv or .json "
           "('-': standard output, with --format)",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, true, true});
  p.section("Semantics", kSemantics);
  p.section("Exit status",
            "  0 success (a warning on stderr when not converged), 1 failure (an empty\n"
            "  graph, an iterate that became zero) or not converged with\n"
            "  --fail-on-nonconvergence, 2 usage error\n");
  p.section("Examples",
            "  spindle power-iteration karate.mtx --centrality\n"
            "  spindle power-iteration web.txt --shift 1 --top 20 -o eigvec.csv\n");
  if (!p.parse(args)) return 0;

  Settings s;
  s.opt.centrality = p.has("centrality");
  s.opt.weighted = p.has("weighted");
  s.opt.tol = p.number("tol", 1e-6, 0.0, 1e300);
  s.opt.max_iter = static_cast<int>(p.integer("max-iter", 100, 0, 1000000000));
  if (p.has("shift")) s.opt.shift = p.number("shift", 0.0, -1e300, 1e300);
  s.top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  s.output = p.get("output");
  s.fail_on_nonconvergence = p.has("fail-on-nonconvergence");
  s.ex = apply_exec_flags(p, ExecFlags{true, true, true});
  s.opt.device = s.ex.device;
  s.opt.mxv_kernel = s.ex.desc.mxv_kernel;
  if (s.output) s.format = check_vertex_output(p, "output");
  check_outputs({{"the graph", p.operand_value(0).value_or("")}}, {{"-o", s.output.value_or("")}});

  const InputOptions io =
      input_options(p, s.opt.weighted ? ValueMode::Weighted : ValueMode::Pattern);
  Input in = load_input(p.operand_value(0), io);
  warn_if_forced_kernel_falls_back(in, s.ex);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("power-iteration needs a square matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  const double shift = effective_shift(s.opt);
  print_graph_header(s.opt.centrality ? "Eigenvector centrality of" : "Power iteration on", in.name,
                     in.rows(), in.nnz());
  report("%s: shift %g, tol %g, max-iter %d%s; %s\n",
         s.opt.centrality ? "networkx semantics (A^T + I)" : "plain (A + shift*I)", shift,
         s.opt.tol, s.opt.max_iter, s.opt.weighted ? ", weighted" : "",
         execution_text(s.ex).c_str());
  return s.ex.use_double ? run<double>(in, s) : run<float>(in, s);
}

}  // namespace spindle::cli
