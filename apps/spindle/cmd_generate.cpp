// SPDX-License-Identifier: Apache-2.0
// spindle generate rmat|uniform|powerlaw|mesh|bipartite: deterministic synthetic graphs written as
// .mtx, .spg or edge lists.
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "graph_output.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/version.hpp"

namespace spindle::cli {

namespace {

struct Params {
  std::string kind;
  int scale = kDefaultGraphScale;
  std::int64_t edge_factor = kDefaultGraphEdgeFactor;
  std::uint64_t seed = kDefaultGraphSeed;
  RmatParams rmat;
  double exponent = 2.1;
  int cols_scale = -1;  // bipartite: log2 of the column count (default scale - 2)
  BuildOptions build;
};

template <class I>
AnyGraph generate(const Params& g) {
  Coo<I> coo;
  if (g.kind == "rmat") {
    coo = generate_rmat<I>(g.scale, g.edge_factor, g.seed, g.rmat);
  } else if (g.kind == "uniform") {
    coo = generate_uniform<I>(g.scale, g.edge_factor, g.seed);
  } else if (g.kind == "powerlaw") {
    coo = generate_powerlaw<I>(g.scale, g.edge_factor, g.exponent, g.seed, g.rmat.scramble);
  } else if (g.kind == "mesh") {
    coo = generate_mesh<I>(g.scale, g.seed, g.rmat.scramble);
  } else {
    coo = generate_bipartite<I>(g.scale, g.cols_scale, g.edge_factor, g.exponent, g.seed);
  }
  return build_graph<I, Pattern>(std::move(coo), g.build);
}

}  // namespace

int cmd_generate(const std::vector<std::string>& args) {
  ArgParser p("generate", "rmat|uniform|powerlaw|mesh|bipartite -o FILE [options]",
              "Writes a random graph with 2^scale vertices and edge-factor * 2^scale generated "
              "edges (a mesh: about 4 per vertex; bipartite: 2^scale rows). The output depends "
              "only on the parameters and the seed (not on the "
              "machine or the thread count). Duplicate edges are merged and self-loops dropped, "
              "as in the built-in default graph, so 'spindle generate rmat -o g.mtx' writes "
              "exactly the graph that 'spindle pagerank' uses without a file.");
  p.operand("KIND",
            "rmat: R-MAT recursive quadrants (a, b, c, d = 1-a-b-c), skewed power-law degrees, "
            "ids scrambled; uniform: both endpoints uniform (Erdos-Renyi with replacement); "
            "powerlaw: Chung-Lu, in- and out-degrees ~ k^-exponent, ids scrambled; mesh: a 2D "
            "grid (road-like: degree <= 4, high diameter), each neighbour pair joined both ways, "
            "ids scrambled; bipartite: 2^scale users x 2^cols-scale items, each entry's user "
            "uniform and its item drawn by a power law of popularity (a rectangular matrix)",
            true);
  p.group("Graph");
  p.option("scale", "S", std::to_string(kDefaultGraphScale), "log2 of the vertex count (0..30)");
  p.option("edge-factor", "E", std::to_string(kDefaultGraphEdgeFactor),
           "generated edges per vertex, before merging duplicates");
  p.option("seed", "X", std::to_string(kDefaultGraphSeed), "random seed (any unsigned integer)");
  p.option("a", "P", "0.57", "R-MAT probability of the top-left quadrant");
  p.option("b", "P", "0.19", "R-MAT probability of the top-right quadrant");
  p.option("c", "P", "0.19", "R-MAT probability of the bottom-left quadrant");
  p.option("exponent", "X", "2.1 (bipartite: 2.2)",
           "powerlaw and bipartite: the degree exponent, in (1.5, 10]; smaller is heavier-tailed");
  p.option("cols-scale", "S", "scale - 2", "bipartite: log2 of the item (column) count");
  p.flag("no-scramble",
         "rmat, powerlaw, mesh: keep the raw ids (R-MAT and power-law hubs cluster at small ids; "
         "mesh ids row by row, neighbours near in id)");
  p.flag("undirected", "add the reverse of every edge");
  p.flag("keep-self-loops", "keep generated self-loops");
  p.group("Output");
  p.option("output", "FILE", "",
           "required; .mtx writes Matrix Market (pattern), .txt/.el/.tsv/.csv an edge list with "
           "1-based ids; '-' writes standard output (with --format)",
           'o');
  add_graph_format_flag(p);
  p.group("Execution");
  p.option("threads", "N", "all cores", "CPU threads (the output does not depend on it)");
  p.flag("quiet", "no progress or status lines on stderr (warnings and errors still appear)");
  p.section("Examples",
            "  spindle generate rmat --scale 20 --edge-factor 16 --seed 7 -o rmat20.mtx\n"
            "  spindle generate uniform --scale 12 -o small.tsv\n"
            "  spindle generate powerlaw --scale 20 --exponent 2.5 -o plaw20.spg\n"
            "  spindle generate mesh --scale 20 --no-scramble -o grid.mtx\n"
            "  spindle generate rmat --scale 10 -o - --format tsv | head\n");
  if (!p.parse(args)) return 0;

  Params g;
  g.kind = *p.operand_value(0);
  if (g.kind != "rmat" && g.kind != "uniform" && g.kind != "powerlaw" && g.kind != "mesh" &&
      g.kind != "bipartite") {
    p.fail("unknown generator '" + g.kind + "' (use rmat, uniform, powerlaw, mesh or bipartite)");
  }
  auto out = p.get("output");
  if (!out) p.fail("-o FILE is required (e.g. -o graph.mtx)");
  char separator = ' ';
  const GraphFileFormat format = output_format(p, *out, &separator);
  g.scale = static_cast<int>(p.integer("scale", kDefaultGraphScale, 0, 30));
  g.edge_factor = p.integer("edge-factor", kDefaultGraphEdgeFactor, 0, std::int64_t{1} << 20);
  g.seed = static_cast<std::uint64_t>(
      p.integer("seed", static_cast<std::int64_t>(kDefaultGraphSeed), 0, INT64_MAX));
  g.rmat.a = p.number("a", 0.57, 0.0, 1.0);
  g.rmat.b = p.number("b", 0.19, 0.0, 1.0);
  g.rmat.c = p.number("c", 0.19, 0.0, 1.0);
  if (g.rmat.a + g.rmat.b + g.rmat.c > 1.0 + 1e-12) p.fail("--a + --b + --c must be at most 1");
  g.rmat.scramble = !p.has("no-scramble");
  if (g.kind != "rmat" && (p.has("a") || p.has("b") || p.has("c"))) {
    p.fail("--a, --b and --c apply to rmat only");
  }
  if (p.has("no-scramble") && g.kind != "rmat" && g.kind != "powerlaw" && g.kind != "mesh") {
    p.fail("--no-scramble applies to rmat, powerlaw and mesh only");
  }
  if (p.has("exponent") && g.kind != "powerlaw" && g.kind != "bipartite") {
    p.fail("--exponent applies to powerlaw and bipartite only");
  }
  g.exponent = p.number("exponent", g.kind == "bipartite" ? 2.2 : 2.1, 1.5, 10.0);
  if (!(g.exponent > 1.5)) p.fail("--exponent must be above 1.5");
  if (p.has("cols-scale") && g.kind != "bipartite")
    p.fail("--cols-scale applies to bipartite only");
  g.cols_scale = static_cast<int>(p.integer("cols-scale", g.scale >= 2 ? g.scale - 2 : 0, 0, 30));
  if (g.kind == "mesh" && p.has("edge-factor")) p.fail("--edge-factor does not apply to mesh");
  if (g.kind == "bipartite" && format == GraphFileFormat::EdgeList) {
    p.fail(
        "bipartite writes a rectangular matrix, which an edge list cannot hold (its two "
        "columns name vertices of one graph); write .mtx or .spg");
  }
  if (g.kind == "bipartite" && p.has("undirected")) {
    p.fail(
        "--undirected needs a square graph; bipartite writes a rectangular users x items matrix");
  }
  g.build.self_loops = p.has("keep-self-loops") ? SelfLoopPolicy::Keep : SelfLoopPolicy::Drop;
  g.build.symmetrize = p.has("undirected");
  apply_exec_flags(p, ExecFlags{});
  check_outputs({}, {{"-o", *out}});  // fail now if FILE cannot be written

  Stopwatch clock;
  // int32 indices unless 2^scale * edge_factor (doubled when undirected) reaches 2^31.
  const double entries = static_cast<double>(std::int64_t{1} << g.scale) *
                         static_cast<double>(g.kind == "mesh" ? 4 : g.edge_factor) *
                         (g.build.symmetrize ? 2 : 1);
  AnyGraph graph;
  {
    StatusLine status("generate " + g.kind + " scale " + std::to_string(g.scale));
    status.set("drawing and building " + std::to_string(static_cast<long long>(entries)) +
               " edges");
    graph = entries < 2147483647.0 ? generate<std::int32_t>(g) : generate<std::int64_t>(g);
  }

  char desc[320];
  const char* const tail_flags[] = {g.build.symmetrize ? " --undirected" : "",
                                    p.has("keep-self-loops") ? " --keep-self-loops" : ""};
  if (g.kind == "rmat") {
    std::snprintf(desc, sizeof desc,
                  "spindle %s generate rmat --scale %d --edge-factor %lld --seed %llu --a %g "
                  "--b %g --c %g%s%s%s",
                  version(), g.scale, static_cast<long long>(g.edge_factor),
                  static_cast<unsigned long long>(g.seed), g.rmat.a, g.rmat.b, g.rmat.c,
                  g.rmat.scramble ? "" : " --no-scramble", tail_flags[0], tail_flags[1]);
  } else if (g.kind == "uniform") {
    std::snprintf(desc, sizeof desc,
                  "spindle %s generate uniform --scale %d --edge-factor %lld --seed %llu%s%s",
                  version(), g.scale, static_cast<long long>(g.edge_factor),
                  static_cast<unsigned long long>(g.seed), tail_flags[0], tail_flags[1]);
  } else if (g.kind == "powerlaw") {
    std::snprintf(desc, sizeof desc,
                  "spindle %s generate powerlaw --scale %d --edge-factor %lld --seed %llu "
                  "--exponent %g%s%s%s",
                  version(), g.scale, static_cast<long long>(g.edge_factor),
                  static_cast<unsigned long long>(g.seed), g.exponent,
                  g.rmat.scramble ? "" : " --no-scramble", tail_flags[0], tail_flags[1]);
  } else if (g.kind == "mesh") {
    std::snprintf(desc, sizeof desc, "spindle %s generate mesh --scale %d --seed %llu%s%s%s",
                  version(), g.scale, static_cast<unsigned long long>(g.seed),
                  g.rmat.scramble ? "" : " --no-scramble", tail_flags[0], tail_flags[1]);
  } else {
    std::snprintf(desc, sizeof desc,
                  "spindle %s generate bipartite --scale %d --cols-scale %d --edge-factor %lld "
                  "--seed %llu --exponent %g%s%s",
                  version(), g.scale, g.cols_scale, static_cast<long long>(g.edge_factor),
                  static_cast<unsigned long long>(g.seed), g.exponent, tail_flags[0],
                  tail_flags[1]);
  }
  GraphWriteOptions wo;
  wo.comments = {desc};
  write_graph_file(*out, graph, format, separator, wo);
  const std::int64_t nnz =
      visit_graph(graph, [](const auto& gr) { return static_cast<std::int64_t>(gr.nnz()); });
  const std::int64_t vertices =
      visit_graph(graph, [](const auto& gr) { return static_cast<std::int64_t>(gr.rows()); });
  progress("wrote %s: %lld %s, %lld edges in %s", out->c_str(), static_cast<long long>(vertices),
           g.kind == "bipartite" ? "rows" : "vertices", static_cast<long long>(nnz),
           format_seconds(clock.seconds()).c_str());
  return 0;
}

}  // namespace spindle::cli
