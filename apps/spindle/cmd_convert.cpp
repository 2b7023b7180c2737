// SPDX-License-Identifier: Apache-2.0
// spindle convert IN OUT: Matrix Market <-> edge lists <-> .spg, formats chosen by extension.
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "graph_output.hpp"
#include "input.hpp"
#include "output_file.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/version.hpp"

namespace spindle::cli {

namespace {

// Numeric order of decimal integer labels of any length ("-12" < "3" < "10"); labels equal as
// numbers but different as text ("7", "007") are ordered as text so the order is total.
bool integer_label_less(const std::string& a, const std::string& b) {
  const bool na = !a.empty() && a[0] == '-';
  const bool nb = !b.empty() && b[0] == '-';
  if (na != nb) return na;
  auto digits = [](const std::string& s) {
    std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    while (i + 1 < s.size() && s[i] == '0') ++i;
    return s.substr(i);
  };
  const std::string da = digits(a), db = digits(b);
  if (da != db) {
    const bool less_mag = da.size() != db.size() ? da.size() < db.size() : da < db;
    return na ? !less_mag : less_mag;
  }
  return a < b;
}

// new_id[old]: integer labels in numeric order (so 0..n-1 and 1..n both become 1..n in order),
// text labels keep their order of first appearance.
std::vector<std::int64_t> label_order(const Input& in) {
  std::vector<std::int64_t> by_rank(in.labels.size());
  std::iota(by_rank.begin(), by_rank.end(), std::int64_t{0});
  if (in.labels_are_integers) {
    std::sort(by_rank.begin(), by_rank.end(), [&](std::int64_t x, std::int64_t y) {
      return integer_label_less(in.labels[static_cast<std::size_t>(x)],
                                in.labels[static_cast<std::size_t>(y)]);
    });
  }
  std::vector<std::int64_t> new_id(by_rank.size());
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    new_id[static_cast<std::size_t>(by_rank[r])] = static_cast<std::int64_t>(r);
  }
  return new_id;
}

template <class I, class V>
Graph<I, V> relabel(const Graph<I, V>& g, const std::vector<std::int64_t>& new_id) {
  Coo<I> coo;
  coo.rows = g.rows();
  coo.cols = g.cols();
  coo.row.reserve(static_cast<std::size_t>(g.nnz()));
  coo.col.reserve(static_cast<std::size_t>(g.nnz()));
  const auto& rp = g.row_ptr();
  const auto& ci = g.col_idx();
  for (I r = 0; r < g.rows(); ++r) {
    for (I k = rp[r]; k < rp[r + 1]; ++k) {
      coo.row.push_back(static_cast<I>(new_id[static_cast<std::size_t>(r)]));
      coo.col.push_back(static_cast<I>(new_id[static_cast<std::size_t>(ci[k])]));
      if constexpr (!Graph<I, V>::is_pattern) coo.val.push_back(static_cast<double>(g.values()[k]));
    }
  }
  return build_graph<I, V>(std::move(coo));
}

}  // namespace

int cmd_convert(const std::vector<std::string>& args) {
  ArgParser p("convert", "IN OUT [options]",
              "Converts a graph between Matrix Market, edge-list and .spg (binary CSR) files; "
              "each format follows the file's extension. Values are kept when the input has "
              "them.");
  p.operand("IN",
            ".mtx (Matrix Market), .spg (binary CSR, told by its magic bytes) or an edge list; "
            "'-' reads standard input",
            true);
  p.operand("OUT",
            ".mtx or .mm (Matrix Market), .spg (binary CSR, loads at copy speed), .txt/.el "
            "(space-separated), .tsv, .csv; '-' writes standard output (with --format)",
            true);
  add_input_flags(p, "");
  p.group("Output");
  add_graph_format_flag(p);
  p.flag("pattern", "drop edge values: write the structure only");
  p.flag("symmetric",
         "Matrix Market output: store the lower triangle as 'symmetric' (the graph must be "
         "symmetric, e.g. read with --undirected)");
  add_exec_flags(p, ExecFlags{});
  p.section("Vertex ids",
            "  Numbered vertices are written 1-based in every format: vertex k of a .mtx\n"
            "  file is 'k' in the edge list made from it, and converting back gives the\n"
            "  same matrix. Edge list -> .mtx numbers integer labels in numeric order\n"
            "  (0..n-1 and 1..n both become 1..n) and text labels by first appearance;\n"
            "  when the labels are not already 1..n they are kept in OUT.labels (line k\n"
            "  holds the label of vertex k), which the matrix names with a checksum:\n"
            "  every command reading OUT shows the original labels again. Writing OUT\n"
            "  without labels removes an old OUT.labels. Edge lists cannot hold isolated\n"
            "  vertices or rectangular matrices. A .spg file keeps the labels inside\n"
            "  itself and the vertex order as read.\n");
  p.section("Examples",
            "  spindle convert web-Google.txt web-Google.mtx\n"
            "  spindle convert bcsstk13.mtx bcsstk13.tsv --pattern\n"
            "  spindle convert rmat22.mtx rmat22.spg\n"
            "  zcat edges.csv.gz | spindle convert - graph.mtx\n"
            "  spindle convert graph.mtx - --format tsv | head\n");
  if (!p.parse(args)) return 0;
  apply_exec_flags(p, ExecFlags{});
  const std::string in_path = *p.operand_value(0);
  const std::string out_path = *p.operand_value(1);
  char separator = ' ';
  const GraphFileFormat out_format = output_format(p, out_path, &separator);
  if (p.has("symmetric") && out_format != GraphFileFormat::MatrixMarket) {
    p.fail("--symmetric applies to Matrix Market output only");
  }
  // Before reading a large input: OUT must be writable and must not be the input (nor must the
  // labels file beside a .mtx output).
  std::vector<NamedPath> outputs = {{"OUT", out_path}};
  if (out_format == GraphFileFormat::MatrixMarket && out_path != "-") {
    outputs.push_back({"the labels file of OUT", labels_file_of(out_path)});
  }
  check_outputs({{"IN", in_path}}, outputs);
  if (out_path == "-") set_report_enabled(false);

  const InputOptions io =
      input_options(p, p.has("pattern") ? ValueMode::Pattern : ValueMode::AsFile);
  Input in = load_input(in_path, io);

  if (out_format == GraphFileFormat::EdgeList) {
    // An edge list has no place for a vertex without edges: say so, since converting back
    // gives a smaller graph (and shifted ids after the first dropped vertex).
    const std::int64_t isolated = visit_graph(in.graph, [](const auto& g) -> std::int64_t {
      if (g.rows() != g.cols()) return 0;  // refused below: edge lists are square
      std::vector<char> touched(static_cast<std::size_t>(g.rows()), 0);
      const auto& rp = g.row_ptr();
      for (std::int64_t i = 0; i < static_cast<std::int64_t>(g.rows()); ++i) {
        if (rp[i + 1] > rp[i]) touched[static_cast<std::size_t>(i)] = 1;
      }
      for (const auto j : g.col_idx()) touched[static_cast<std::size_t>(j)] = 1;
      return static_cast<std::int64_t>(std::count(touched.begin(), touched.end(), 0));
    });
    if (isolated > 0) {
      warn(
          "%lld of %lld vertices have no edges and are not in %s (an edge list cannot hold "
          "isolated vertices): converting it back gives a graph without them",
          static_cast<long long>(isolated), static_cast<long long>(in.rows()), out_path.c_str());
    }
  }

  GraphWriteOptions wo;
  wo.symmetric = p.has("symmetric");
  wo.comments = {std::string("converted by spindle ") + version() + " from " + in.name};
  if (out_format == GraphFileFormat::EdgeList || out_format == GraphFileFormat::Spg) {
    wo.labels = in.labels;
  }
  if (out_format == GraphFileFormat::Spg) {
    // The header's flag: the graph equals its transpose as read.
    wo.symmetric = (in.format == GraphFileFormat::MatrixMarket &&
                    in.header.symmetry == MmSymmetry::Symmetric) ||
                   (in.format == GraphFileFormat::Spg && in.spg_header.symmetric) ||
                   p.has("undirected");
  }
  if (out_format == GraphFileFormat::MatrixMarket && !in.labels.empty()) {
    const std::vector<std::int64_t> new_id = label_order(in);
    bool identity_ids = true;  // labels already say "1".."n" in this order
    std::vector<std::string> label_of(in.labels.size());
    for (std::size_t v = 0; v < new_id.size(); ++v) {
      label_of[static_cast<std::size_t>(new_id[v])] = in.labels[v];
      identity_ids = identity_ids && in.labels[v] == std::to_string(new_id[v] + 1);
    }
    in.graph = std::visit([&](const auto& g) -> AnyGraph { return relabel(g, new_id); }, in.graph);
    if (!identity_ids) wo.labels = std::move(label_of);
  }
  write_graph_file(out_path, in.graph, out_format, separator, wo);
  if (out_format == GraphFileFormat::MatrixMarket && !wo.labels.empty()) {
    note(
        "%s numbers vertices 1..%zu; their original labels are in %s, which commands reading "
        "%s use",
        out_path.c_str(), wo.labels.size(), labels_file_of(out_path).c_str(), out_path.c_str());
  }
  progress("wrote %s: %lld x %lld, %lld entries", out_path.c_str(),
           static_cast<long long>(in.rows()), static_cast<long long>(in.cols()),
           static_cast<long long>(in.nnz()));
  return 0;
}

}  // namespace spindle::cli
