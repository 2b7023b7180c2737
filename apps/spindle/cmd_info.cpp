// SPDX-License-Identifier: Apache-2.0
// spindle info FILE: shape, value type, row-length statistics and the log2 degree histogram;
// --json for scripts, --explain for the planner's kernel choices.
#include <algorithm>
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "common.hpp"
#include "explain.hpp"
#include "input.hpp"
#include "json.hpp"
#include "spindle/loaders/matrix_market.hpp"

namespace spindle::cli {

namespace {

// Row-length range of log2 bucket b (GraphStats::rows_by_log2_length): b = 0 holds empty rows,
// b >= 1 holds lengths in [2^(b-1), 2^b).
std::pair<std::int64_t, std::int64_t> bucket_range(std::size_t b) {
  if (b == 0) return {0, 0};
  std::int64_t lo = std::int64_t{1} << (b - 1);
  return {lo, 2 * lo - 1};
}

std::string format_description(const Input& in) {
  if (in.builtin) return "generated (R-MAT, self-loops dropped, duplicates collapsed)";
  if (in.format == GraphFileFormat::MatrixMarket) {
    const auto& h = in.header;
    std::string s = std::string("Matrix Market ") + to_string(h.format) + " " + to_string(h.field) +
                    " " + to_string(h.symmetry);
    if (h.symmetry == MmSymmetry::Symmetric || h.symmetry == MmSymmetry::SkewSymmetric) {
      s += " (" + std::to_string(h.entries) + " stored entries, mirrored)";
    }
    if (!in.labels_path.empty()) s += ", vertex labels from " + in.labels_path;
    return s;
  }
  if (in.format == GraphFileFormat::Spg) {
    const SpgHeader& h = in.spg_header;
    std::string s = std::string(".spg version ") + std::to_string(h.version) + " (" +
                    (h.index == IndexKind::Int32 ? "int32" : "int64") + " indices, " +
                    to_string(h.values) + " values" + (h.symmetric ? ", symmetric" : "") + ")";
    if (!in.labels.empty()) {
      s += ", " + std::to_string(in.labels.size()) + " labels (" +
           (in.labels_are_integers ? "integers" : "text") + ")";
    }
    return s;
  }
  std::string s = in.file_has_values ? "edge list with weights" : "edge list";
  s += ", " + std::to_string(in.labels.size()) + " labels (" +
       (in.labels_are_integers ? "integers" : "text") + ", numbered by first appearance)";
  return s;
}

void print_text(const Input& in, bool undirected, const std::vector<ExplainDevice>* plans) {
  const GraphStats& s = in.stats();
  std::printf("graph        %s\n", in.name.c_str());
  std::printf("format       %s%s\n", format_description(in).c_str(),
              undirected ? ", reverse edges added (--undirected)" : "");
  std::printf("shape        %lld x %lld%s, index %s, values %s\n", static_cast<long long>(s.rows),
              static_cast<long long>(s.cols),
              s.rows == s.cols ? "" : " (rectangular: not a graph for pagerank/bfs/...)",
              in.is_int64() ? "int64" : "int32", in.is_pattern() ? "pattern" : "double");
  std::printf("nnz          %lld%s\n", static_cast<long long>(s.nnz),
              in.header.symmetry != MmSymmetry::General ? " (after symmetric expansion)" : "");
  std::printf("row length   avg %.3f, stdv %.3f, min %lld, max %lld (imbalance stdv/avg %.2f)\n",
              s.avg_row, s.stdv_row, static_cast<long long>(s.min_row),
              static_cast<long long>(s.max_row), s.imbalance());
  std::printf("columns      in-degree stdv/avg %.2f (%s)\n", s.col_imbalance_est,
              s.nnz + s.cols <= kColumnImbalanceExactMax ? "counted"
                                                         : "estimated from a sample of entries");
  std::printf("empty rows   %lld%s\n", static_cast<long long>(s.empty_rows),
              s.empty_rows > 0 && s.rows == s.cols ? " (dangling vertices: no out-edges)" : "");
  std::printf("self-loops   %lld\n", static_cast<long long>(s.self_loops));
  const auto& h = s.rows_by_log2_length;
  std::int64_t most = h.empty() ? 0 : *std::max_element(h.begin(), h.end());
  if (!h.empty()) std::printf("row lengths  (rows per log2 bucket)\n");
  for (std::size_t b = 0; b < h.size(); ++b) {
    auto [lo, hi] = bucket_range(b);
    char range[48];
    if (lo == hi) {
      std::snprintf(range, sizeof range, "%lld", static_cast<long long>(lo));
    } else {
      std::snprintf(range, sizeof range, "%lld-%lld", static_cast<long long>(lo),
                    static_cast<long long>(hi));
    }
    int bar = most > 0 ? static_cast<int>((40 * h[b] + most - 1) / most) : 0;
    std::printf("  %13s %10lld%s%s\n", range, static_cast<long long>(h[b]), bar > 0 ? "  " : "",
                std::string(static_cast<std::size_t>(bar), '#').c_str());
  }
  if (plans) std::printf("\n%s", explain_text(*plans).c_str());
}

void print_json(const Input& in, bool undirected, const std::vector<ExplainDevice>* plans) {
  const GraphStats& s = in.stats();
  JsonWriter w;
  w.begin_object();
  w.field("file", in.builtin ? std::string() : in.path);
  w.field("graph", in.name);
  w.field("format", in.builtin                                   ? "generated"
                    : in.format == GraphFileFormat::MatrixMarket ? "matrix_market"
                    : in.format == GraphFileFormat::Spg          ? "spg"
                                                                 : "edge_list");
  if (!in.builtin && in.format == GraphFileFormat::MatrixMarket) {
    w.field("mm_format", to_string(in.header.format));
    w.field("mm_field", to_string(in.header.field));
    w.field("mm_symmetry", to_string(in.header.symmetry));
    w.field("stored_entries", in.header.entries);
  }
  if (!in.labels.empty()) w.field("labels_are_integers", in.labels_are_integers);
  if (!in.labels_path.empty()) w.field("labels_file", in.labels_path);
  w.field("undirected", undirected);
  w.field("rows", s.rows);
  w.field("cols", s.cols);
  w.field("nnz", s.nnz);
  w.field("value_type", in.is_pattern() ? "pattern" : "double");
  w.field("index_type", in.is_int64() ? "int64" : "int32");
  w.field("avg_row", s.avg_row);
  w.field("stdv_row", s.stdv_row);
  w.field("min_row", s.min_row);
  w.field("max_row", s.max_row);
  w.field("empty_rows", s.empty_rows);
  w.field("self_loops", s.self_loops);
  w.field("imbalance", s.imbalance());
  w.field("col_imbalance_est", s.col_imbalance_est);
  w.key("row_length_histogram");
  w.begin_array();
  for (std::size_t b = 0; b < s.rows_by_log2_length.size(); ++b) {
    auto [lo, hi] = bucket_range(b);
    w.begin_object(true);
    w.field("min", lo);
    w.field("max", hi);
    w.field("rows", s.rows_by_log2_length[b]);
    w.end_object();
  }
  w.end_array();
  if (plans) explain_json(w, *plans);
  w.end_object();
  std::printf("%s\n", w.str().c_str());
}

}  // namespace

int cmd_info(const std::vector<std::string>& args) {
  ArgParser p("info", "FILE [options]",
              "Reads a graph and prints its shape, value type and row-length statistics (nnz "
              "counts both directions of a symmetric Matrix Market file; duplicate entries "
              "are summed for weighted files and collapsed for pattern files; self-loops "
              "are kept), and a histogram of row lengths in log2 buckets.");
  p.operand("FILE", "graph file: .mtx (Matrix Market) or an edge list (.txt/.tsv/.csv/.el)", true);
  add_input_flags(p, "");
  p.group("Output");
  p.flag("json", "print exactly one JSON object on stdout instead of the text report");
  p.flag("explain",
         "also show which kernel the planner picks for mxv, vxm, mxm and sddmm on the CPU "
         "and on CUDA (for a reference H100 when this machine has no GPU)");
  p.option("width", "N", "64", "dense width N of the mxm/sddmm calls shown by --explain");
  add_exec_flags(p, ExecFlags{false, false, true});
  p.section("Examples",
            "  spindle info graph.mtx\n"
            "  spindle info --json --explain web.txt | jq .plans\n");
  if (!p.parse(args)) return 0;
  Execution ex = apply_exec_flags(p, ExecFlags{false, false, true});
  std::int64_t width = p.integer("width", 64, 1, 1 << 20);

  const InputOptions io = input_options(p, ValueMode::AsFile);
  Input in = load_input(p.operand_value(0), io);
  std::vector<ExplainDevice> plans;
  if (p.has("explain")) plans = explain_plans(in, ex.desc, width);
  const auto* plans_ptr = p.has("explain") ? &plans : nullptr;
  if (p.has("json")) {
    print_json(in, io.undirected, plans_ptr);
  } else {
    print_text(in, io.undirected, plans_ptr);
  }
  return 0;
}

}  // namespace spindle::cli
