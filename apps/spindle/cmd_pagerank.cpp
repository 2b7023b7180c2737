// SPDX-License-Identifier: Apache-2.0
// spindle pagerank [FILE]: the main job. Header, top-K table, summary line on stdout; every
// vertex to --output (CSV/JSON) in the input's own ids.
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "output_file.hpp"
#include "spindle/algorithms/pagerank.hpp"
#include "spindle/cuda/warm_up.hpp"
#include "spindle/error.hpp"
#include "vertex_io.hpp"

namespace spindle::cli {

namespace {

constexpr const char* kConventions =
    "  An entry A(u,v) is an edge u -> v, and rank flows along edges. Starting from\n"
    "  x = 1/n, each iteration computes\n"
    "    x' = alpha * A^T (x ./ outdeg) + (alpha * dangling_sum + 1 - alpha) * p\n"
    "  where p is uniform (1/n) or the --personalize vector (normalized to sum 1),\n"
    "  outdeg counts out-edges (the weighted out-degree with --weighted), and\n"
    "  dangling_sum is the rank held by vertices without out-edges.\n"
    "\n"
    "  preset    teleport     dangling rank    stops when            ranks sum to\n"
    "  default   (1-alpha)/n  spread like p    |x'-x|_1 < tol        1\n"
    "  networkx  (1-alpha)/n  spread like p    |x'-x|_1 < n*tol      1\n"
    "  gap       (1-alpha)/n  dropped          |x'-x|_1 < tol        <= 1\n"
    "  boost     (1-alpha)    dropped          after --max-iter (20) unnormalized\n"
    "\n"
    "  networkx reproduces networkx.pagerank(G, alpha, personalization, tol=tol,\n"
    "  weight=None): the structure only, as every preset, unless --weighted (then\n"
    "  weight='weight', the file's values); gap the GAP benchmark suite's pr, and\n"
    "  boost boost::graph::page_rank (r starts at 1/n).\n"
    "  Self-loops are ordinary edges; duplicate edges count once unless --weighted\n"
    "  (then their weights add up).\n";

constexpr const char* kExitStatus =
    "  0  ranks computed (also when not converged: a warning goes to stderr)\n"
    "  1  failure (unreadable input, bad --personalize file, ...), or not converged\n"
    "     with --fail-on-nonconvergence (the --output file is then not written)\n"
    "  2  usage error\n";

struct Settings {
  PageRankOptions opt;
  Execution ex;
  std::int64_t top = 10;
  std::optional<std::string> output;
  VertexFormat format = VertexFormat::Csv;
  bool fail_on_nonconvergence = false;
};

/// --weighted needs non-negative finite edge values. pagerank() refuses them too, but only after
/// the header lines are out; checked here first so that a bad file gives one error line.
void check_weights(const Input& in) {
  visit_graph(in.graph, [&](const auto& g) {
    using G = std::decay_t<decltype(g)>;
    if constexpr (!G::is_pattern) {
      for (const auto w : g.values()) {
        if (!std::isfinite(static_cast<double>(w)) || w < 0) {
          throw InvalidArgument("--weighted: " + in.name +
                                " has an edge value that is not a finite non-negative number (" +
                                format_number(static_cast<double>(w)) +
                                "); weighted PageRank needs weights >= 0");
        }
      }
    }
  });
}

template <class T>
int run(const Input& in, Settings& s) {
  if (time_logging_enabled() && s.opt.device == Device::Cuda) {
    // The context is created on a background thread while the graph loads: what is left of it.
    Stopwatch wait;
    cuda_warm_up_wait();
    log_phase("CUDA context (left after the load)", wait.seconds());
  }
  Stopwatch clock;
  PageRankResult<T> r;
  {
    StatusLine status("pagerank");
    PageRankOptions opt = s.opt;
    opt.on_iteration = [&status](int k, double residual) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "iteration %d, residual %.3g", k, residual);
      status.set(buf);
    };
    r = visit_graph(in.graph, [&](const auto& g) { return pagerank<T>(g, opt); });
  }
  const double seconds = clock.seconds();
  log_phase("pagerank (uploads, transpose, iterations)", seconds);
  Stopwatch after;
  const std::int64_t n = in.rows();
  // One download on CUDA, then a plain array (not an accessor call per vertex).
  const std::vector<T>& rank_values = std::as_const(r.ranks).values();
  std::vector<double> score(rank_values.begin(), rank_values.end());

  if (!r.tuned.empty()) {
    report("tuned mxv: %s%s\n", r.tuned.c_str(),
           s.opt.plan_cache.empty() ? "" : (", plan cache " + s.opt.plan_cache).c_str());
  }
  if (s.top > 0 && n > 0) print_top_table(in, top_k(score, s.top), score, "score");
  const bool boost = s.opt.preset == PageRankPreset::Boost;
  // networkx stops at n*tol: say so, or a residual above --tol looks like a bug.
  char threshold[64] = "";
  if (s.opt.preset == PageRankPreset::NetworkX) {
    std::snprintf(threshold, sizeof threshold, " (stops below n*tol = %.3g)",
                  static_cast<double>(n) * s.opt.tol);
  }
  report("iterations %d, residual %.3g%s, converged %s%s, time %s\n", r.iterations, r.residual,
         threshold, r.converged ? "yes" : "no",
         boost ? " (boost runs a fixed number of iterations)" : "",
         format_seconds(seconds).c_str());
  std::fflush(stdout);

  if (!r.converged && !boost) {
    char what[160];
    if (r.iterations == 0) {
      std::snprintf(what, sizeof what, "no PageRank iteration was run (--max-iter 0)");
    } else {
      std::snprintf(what, sizeof what,
                    "PageRank did not converge in %d iterations (residual %.3g, tol %g%s)",
                    r.iterations, r.residual, s.opt.tol,
                    s.opt.preset == PageRankPreset::NetworkX ? " x n" : "");
    }
    report_nonconvergence(what, s.fail_on_nonconvergence,
                          r.iterations == 0 ? "the ranks are the start vector"
                                            : "ranks are approximate: raise --max-iter or --tol");
  }
  if (s.output) {
    std::vector<std::pair<std::string, std::string>> meta = {
        {"graph", json_string(in.name)},
        {"n", std::to_string(n)},
        {"nnz", std::to_string(in.nnz())},
        {"preset", json_string(to_string(s.opt.preset))},
        {"alpha", format_number(s.opt.alpha)},
        {"tol", format_number(s.opt.tol)},
        {"weighted", s.opt.weighted ? "true" : "false"},
        {"personalized", s.opt.personalization.empty() ? "false" : "true"},
        {"precision", json_string(s.ex.use_double ? "double" : "float")},
        {"iterations", std::to_string(r.iterations)},
        {"residual", format_number(r.residual)},
        {"converged", r.converged ? "true" : "false"},
    };
    // The formatter runs on all threads over the plain array.
    const std::vector<T>& ranks = rank_values;
    log_phase("ranks read back, top table", after.seconds());
    Stopwatch write;
    write_vertex_file(*s.output, s.format, in,
                      {{"rank", [&](std::int64_t v) { return format_value(ranks[v]); }}}, meta);
    log_phase("write", write.seconds());
    progress("wrote %s", s.output->c_str());
  } else {
    log_phase("ranks read back, top table", after.seconds());
  }
  return 0;
}

}  // namespace

int cmd_pagerank(const std::vector<std::string>& args) {
  ArgParser p("pagerank", "[FILE] [options]",
              "Computes PageRank and prints the top vertices. Without FILE it runs on the "
              "built-in R-MAT graph (scale 16, edge factor 16, seed 1; the same graph as "
              "'spindle generate rmat -o g.mtx').");
  p.operand("FILE",
            "graph file: .mtx (general: edge row -> col; symmetric: both directions) or an "
            "edge list (directed first -> second column)",
            false);
  add_input_flags(p,
                  "use edge values as transition weights, normalized by each vertex's "
                  "weighted out-degree (default: structure only, every edge weighs 1)");
  p.option("personalize", "FILE", "",
           "teleport (and dangling rank) by a 'vertex,weight' CSV in the input's own ids; "
           "unlisted vertices weigh 0; finite weights >= 0, normalized to sum 1 ('-': standard "
           "input)");
  p.group("PageRank");
  p.option("alpha", "A", "0.85", "damping factor in [0, 1]: the probability of following an edge");
  p.option("tol", "T", "1e-6",
           "stop when the L1 norm of the change is below T; networkx: below n*T");
  p.option("max-iter", "N", "100; 20 for boost", "iteration limit");
  p.option("preset", "NAME", "default",
           "whose conventions to follow: default, networkx, gap or boost (table below)");
  p.option("method", "M", "power",
           "power: the preset's power iteration; anderson: Anderson acceleration of the same "
           "step, the same fixed point in fewer products (default and networkx presets; stops "
           "on the same test)");
  p.flag("fail-on-nonconvergence", "exit with status 1 when the iteration limit is reached");
  p.group("Output");
  p.option("top", "K", "10", "print the K highest-ranked vertices (0: none)");
  p.option("output", "FILE", "",
           "write every vertex's rank: .csv ('vertex,rank', one line per vertex), .tsv or .json; "
           "ids are the input's own (1-based for .mtx, labels for edge lists); '-' writes "
           "standard output (with --format), which then carries the file alone",
           'o');
  add_vertex_format_flag(p);
  add_exec_flags(p, ExecFlags{true, true, true, true, true});
  p.section("Conventions", kConventions);
  p.section("Exit status", kExitStatus);
  p.section("Examples",
            "  spindle pagerank                          # built-in graph\n"
            "  spindle pagerank web.txt --top 20 -o ranks.csv\n"
            "  spindle pagerank g.mtx --preset networkx --personalize seeds.csv\n"
            "  spindle pagerank big.mtx --device cuda --plan-cache ~/.spindle-plans\n"
            "  zcat web.txt.gz | spindle pagerank - -o - --format json | jq .iterations\n");
  if (!p.parse(args)) return 0;

  Settings s;
  s.opt.alpha = p.number("alpha", 0.85, 0.0, 1.0);
  s.opt.tol = p.number("tol", 1e-6, 0.0, 1e300);
  s.opt.max_iter = static_cast<int>(p.integer("max-iter", -1, 0, 1000000000));
  std::string preset = p.choice("preset", "default", {"default", "networkx", "gap", "boost"});
  s.opt.preset = preset == "networkx" ? PageRankPreset::NetworkX
                 : preset == "gap"    ? PageRankPreset::Gap
                 : preset == "boost"  ? PageRankPreset::Boost
                                      : PageRankPreset::Default;
  s.opt.method = p.choice("method", "power", {"power", "anderson"}) == "anderson"
                     ? PageRankMethod::Anderson
                     : PageRankMethod::Power;
  if (s.opt.method != PageRankMethod::Power && s.opt.preset != PageRankPreset::Default &&
      s.opt.preset != PageRankPreset::NetworkX) {
    p.fail("--method anderson needs --preset default or networkx (" + preset +
           " defines its iterates, not only their fixed point)");
  }
  if (s.opt.preset == PageRankPreset::Boost && p.has("personalize")) {
    p.fail("--personalize cannot be used with --preset boost (Boost.Graph has no personalization)");
  }
  s.opt.weighted = p.has("weighted");
  s.fail_on_nonconvergence = p.has("fail-on-nonconvergence");
  s.top = p.integer("top", 10, 0, std::int64_t{1} << 40);
  s.output = p.get("output");
  s.ex = apply_exec_flags(p, ExecFlags{true, true, true, true, true});
  s.opt.device = s.ex.device;
  s.opt.mxv_kernel = s.ex.desc.mxv_kernel;
  s.opt.tune = s.ex.tune;
  s.opt.plan_cache = s.ex.plan_cache;
  if (s.output) s.format = check_vertex_output(p, "output");
  check_outputs({{"the graph", p.operand_value(0).value_or("")},
                 {"--personalize", p.get_or("personalize", "")}},
                {{"-o", s.output.value_or("")}});

  const InputOptions io =
      input_options(p, s.opt.weighted ? ValueMode::Weighted : ValueMode::Pattern);
  Stopwatch load_clock;
  Input in = load_input(p.operand_value(0), io);
  log_phase("load", load_clock.seconds());
  warn_if_forced_kernel_falls_back(in, s.ex);
  if (in.rows() != in.cols()) {
    throw InvalidArgument("pagerank needs a square adjacency matrix, but " + in.name + " is " +
                          std::to_string(in.rows()) + " x " + std::to_string(in.cols()));
  }
  if (s.opt.weighted && !in.builtin && !in.file_has_values) {
    warn("--weighted: %s has no edge values, every edge weighs 1", in.name.c_str());
  }
  if (s.opt.weighted) check_weights(in);
  if (auto file = p.get("personalize")) {
    s.opt.personalization = read_vertex_weights(input_path(*file), in);
  }

  print_graph_header("PageRank of", in.name, in.rows(), in.nnz());
  const int max_iter = s.opt.max_iter >= 0                     ? s.opt.max_iter
                       : s.opt.preset == PageRankPreset::Boost ? 20
                                                               : 100;
  std::string personalized;
  if (auto file = p.get("personalize")) personalized = ", personalized by " + *file;
  report("preset %s: alpha %g, tol %g, max-iter %d%s%s%s; %s\n", to_string(s.opt.preset),
         s.opt.alpha, s.opt.tol, max_iter, s.opt.weighted ? ", weighted" : "", personalized.c_str(),
         s.opt.method == PageRankMethod::Power ? "" : ", method anderson",
         execution_text(s.ex).c_str());
  return s.ex.use_double ? run<double>(in, s) : run<float>(in, s);
}

}  // namespace spindle::cli
