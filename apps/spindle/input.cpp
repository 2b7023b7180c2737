// SPDX-License-Identifier: Apache-2.0
#include "input.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <system_error>

#include "common.hpp"
#include "labels_file.hpp"
#include "output_file.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/loaders/spg.hpp"

namespace spindle::cli {

namespace {

constexpr std::int64_t kInt32Limit = std::numeric_limits<std::int32_t>::max();

// Edge-list lines are at least 4 bytes ("a b\n"), so size/4 bounds the entry count before
// reading: choosing the index type up front avoids reading a file twice.
constexpr std::int64_t kMinEdgeLineBytes = 4;

void check_readable(const std::string& path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) throw Error(path + ": no such file");
  if (std::filesystem::is_directory(st)) throw Error(path + ": is a directory, not a graph file");
}

const char* policy_words(DuplicatePolicy p) {
  switch (p) {
    case DuplicatePolicy::KeepFirst:
      return "the first of each was kept";
    case DuplicatePolicy::KeepLast:
      return "the last of each was kept";
    case DuplicatePolicy::Max:
      return "the largest of each was kept";
    case DuplicatePolicy::Min:
      return "the smallest of each was kept";
    default:
      return "their values were summed";
  }
}

const char* policy_flag(DuplicatePolicy p) {
  switch (p) {
    case DuplicatePolicy::KeepFirst:
      return "first";
    case DuplicatePolicy::KeepLast:
      return "last";
    case DuplicatePolicy::Max:
      return "max";
    case DuplicatePolicy::Min:
      return "min";
    default:
      return "sum";
  }
}

// Duplicates that changed values are said out loud: a symmetric file that stores both (i, j)
// and (j, i), or an edge list listing both directions read with --undirected, would otherwise
// double weights silently. Pattern graphs lose nothing (an edge is an edge).
void warn_duplicates(const Input& in, const BuildReport& r, const InputOptions& o, bool values) {
  if (!values || r.merged_duplicates == 0) return;
  const DuplicatePolicy p = o.duplicates;
  const bool symmetric =
      in.format == GraphFileFormat::MatrixMarket && in.header.symmetry != MmSymmetry::General;
  std::string what;
  if (symmetric) {
    what = "entries of this " + std::string(to_string(in.header.symmetry)) +
           " file were merged with another copy of the same element (stored both as (i, j) and "
           "(j, i), or repeated)";
  } else if (o.undirected) {
    what =
        "edges were merged with another copy once the reverse edges were added "
        "(--undirected: an edge listed in both directions is one edge given twice)";
  } else {
    what = "duplicate edges (the same source and target given again) were merged";
  }
  warn("%s: %lld %s; %s (--duplicates %s; sum|first|last|max|min|error choose)", in.name.c_str(),
       static_cast<long long>(r.merged_duplicates), what.c_str(), policy_words(p), policy_flag(p));
}

template <class I, class V>
Graph<I, V> read_mtx(const std::string& path, const InputOptions& o, BuildReport& report) {
  MatrixMarketOptions mo;
  mo.build.symmetrize = o.undirected;
  mo.build.duplicates = o.duplicates;
  mo.build.report = &report;
  mo.headerless = o.headerless;
  mo.allow_nonfinite = o.allow_nonfinite;
  mo.trust_dimensions = o.trust_dimensions;
  mo.progress = show_progress();
  return read_matrix_market<I, V>(path, mo);
}

template <class I>
void read_el(Input& in, const std::string& path, const InputOptions& o) {
  EdgeListOptions eo;
  eo.allow_nonfinite = o.allow_nonfinite;
  eo.ignore_extra_columns = o.ignore_extra_columns;
  eo.header = o.header;
  eo.allow_empty = o.allow_empty;
  eo.progress = show_progress();
  EdgeListCoo<I> raw = read_edge_list_coo<I>(path, eo);
  if (!raw.header.empty()) {
    note("%s:%lld: skipped the header row '%s' (--header no reads it as an edge)", in.name.c_str(),
         static_cast<long long>(raw.header_line), raw.header.c_str());
  }
  in.labels = std::move(raw.labels);
  in.labels_are_integers = raw.labels_are_integers;
  in.file_has_values = raw.weighted;
  BuildOptions bo;
  bo.symmetrize = o.undirected;
  bo.duplicates = o.duplicates;
  BuildReport report;
  bo.report = &report;
  bool values = o.values == ValueMode::Weighted || (o.values == ValueMode::AsFile && raw.weighted);
  if (values) {
    in.graph = build_graph<I, double>(std::move(raw.coo), bo);
  } else {
    in.graph = build_graph<I, Pattern>(std::move(raw.coo), bo);
  }
  warn_duplicates(in, report, o, values && raw.weighted);
}

template <class I>
void make_builtin(Input& in, const InputOptions& o) {
  bool values = o.values == ValueMode::Weighted;
  if (!o.undirected) {
    if (values) {
      in.graph = make_default_graph<I, double>();
    } else {
      in.graph = make_default_graph<I, Pattern>();
    }
    return;
  }
  BuildOptions bo;
  bo.self_loops = SelfLoopPolicy::Drop;
  bo.symmetrize = true;
  auto coo = generate_rmat<I>(kDefaultGraphScale, kDefaultGraphEdgeFactor, kDefaultGraphSeed);
  if (values) {
    in.graph = build_graph<I, double>(std::move(coo), bo);
  } else {
    in.graph = build_graph<I, Pattern>(std::move(coo), bo);
  }
}

// A .spg file holds a built graph: read as it is (converted to the CLI's types when they
// differ), made undirected by the reader when asked.
template <class I, class V>
AnyGraph read_spg_as(Input& in, const std::string& path, const InputOptions& o) {
  SpgReadOptions so;
  so.trust_dimensions = o.trust_dimensions;
  so.allow_nonfinite = o.allow_nonfinite;
  BuildReport report;
  so.build.symmetrize = o.undirected;
  so.build.duplicates = o.duplicates;
  so.build.report = &report;
  SpgResult<I, V> r = read_spg<I, V>(path, so);
  in.labels = std::move(r.labels);
  if (o.undirected) warn_duplicates(in, report, o, !Graph<I, V>::is_pattern);
  return std::move(r.graph);
}

}  // namespace

std::string builtin_graph_description() {
  return "built-in R-MAT graph (scale " + std::to_string(kDefaultGraphScale) + ", edge factor " +
         std::to_string(kDefaultGraphEdgeFactor) + ", seed " + std::to_string(kDefaultGraphSeed) +
         ")";
}

Input load_input(const std::optional<std::string>& path, const InputOptions& o) {
  Stopwatch clock;
  Input in;
  if (!path) {
    in.builtin = true;
    in.name = builtin_graph_description();
    if (o.force_int64) {
      make_builtin<std::int64_t>(in, o);
    } else {
      make_builtin<std::int32_t>(in, o);
    }
    progress("generated %s in %s", in.name.c_str(), format_seconds(clock.seconds()).c_str());
    return in;
  }
  in.path = input_path(*path);
  in.name = *path == "-" ? "standard input" : *path;
  check_readable(in.path);
  // A pipe or process substitution (`spindle pagerank <(zcat g.mtx.gz)`) is read once and held:
  // the format sniffing, the header and the body each open the path.
  const InputStreamCapture capture(in.path);
  in.format = guess_graph_format(in.path);
  const std::string& file = in.path;
  if (in.format == GraphFileFormat::Spg) {
    in.spg_header = read_spg_header(file);
    const SpgHeader& h = in.spg_header;
    in.file_has_values = h.values != ValueKind::Pattern;
    const bool big =
        o.force_int64 || h.index == IndexKind::Int64 || (o.undirected && h.nnz > kInt32Limit / 2);
    const bool values =
        o.values == ValueMode::Weighted || (o.values == ValueMode::AsFile && in.file_has_values);
    if (big) {
      in.graph = values ? read_spg_as<std::int64_t, double>(in, file, o)
                        : read_spg_as<std::int64_t, Pattern>(in, file, o);
    } else {
      in.graph = values ? read_spg_as<std::int32_t, double>(in, file, o)
                        : read_spg_as<std::int32_t, Pattern>(in, file, o);
    }
    in.labels_are_integers = h.labels_are_integers || in.labels.empty();
  } else if (in.format == GraphFileFormat::MatrixMarket) {
    in.header = read_matrix_market_header(file, o.headerless);
    if (in.header.format == MmFormat::Array) {
      throw Error(*path + ": a dense " + std::to_string(in.header.rows) + " x " +
                  std::to_string(in.header.cols) +
                  " matrix (Matrix Market 'array' format); graph commands need a sparse "
                  "'coordinate' file");
    }
    in.file_has_values = in.header.field != MmField::Pattern;
    std::int64_t mirror = in.header.symmetry == MmSymmetry::General && !o.undirected ? 1 : 2;
    bool big = o.force_int64 || in.header.rows > kInt32Limit || in.header.cols > kInt32Limit ||
               in.header.entries > kInt32Limit / mirror;
    bool values =
        o.values == ValueMode::Weighted || (o.values == ValueMode::AsFile && in.file_has_values);
    BuildReport report;
    if (big) {
      if (values) {
        in.graph = read_mtx<std::int64_t, double>(file, o, report);
      } else {
        in.graph = read_mtx<std::int64_t, Pattern>(file, o, report);
      }
    } else {
      if (values) {
        in.graph = read_mtx<std::int32_t, double>(file, o, report);
      } else {
        in.graph = read_mtx<std::int32_t, Pattern>(file, o, report);
      }
    }
    warn_duplicates(in, report, o, values && in.file_has_values);
    if (auto labels = read_declared_labels(file, in.header, in.rows(), &in.labels_path)) {
      if (in.rows() != in.cols()) {
        throw Error(in.labels_path + ": vertex labels for a " + std::to_string(in.rows()) + " x " +
                    std::to_string(in.cols()) + " matrix, which is not a graph's");
      }
      in.labels = std::move(*labels);
      in.labels_are_integers = std::all_of(in.labels.begin(), in.labels.end(),
                                           [](const auto& l) { return parse_int(l).has_value(); });
    }
  } else {
    std::error_code ec;
    auto bytes = static_cast<std::int64_t>(std::filesystem::file_size(file, ec));
    if (capture.active()) {
      bytes = capture.bytes();
      ec.clear();
    }
    std::int64_t bound = ec ? 0 : bytes / kMinEdgeLineBytes * (o.undirected ? 2 : 1);
    if (o.force_int64 || bound > kInt32Limit) {
      read_el<std::int64_t>(in, file, o);
    } else {
      read_el<std::int32_t>(in, file, o);
    }
  }
  progress("read %s: %lld x %lld, %lld entries in %s", in.name.c_str(),
           static_cast<long long>(in.rows()), static_cast<long long>(in.cols()),
           static_cast<long long>(in.nnz()), format_seconds(clock.seconds()).c_str());
  return in;
}

std::int64_t Input::rows() const {
  return visit_graph(graph, [](const auto& g) { return static_cast<std::int64_t>(g.rows()); });
}
std::int64_t Input::cols() const {
  return visit_graph(graph, [](const auto& g) { return static_cast<std::int64_t>(g.cols()); });
}
std::int64_t Input::nnz() const {
  return visit_graph(graph, [](const auto& g) { return static_cast<std::int64_t>(g.nnz()); });
}
bool Input::is_pattern() const {
  return visit_graph(graph, [](const auto& g) { return std::decay_t<decltype(g)>::is_pattern; });
}
bool Input::is_int64() const {
  return visit_graph(graph, [](const auto& g) {
    return sizeof(typename std::decay_t<decltype(g)>::index_type) == 8;
  });
}
const GraphStats& Input::stats() const {
  return visit_graph(graph, [](const auto& g) -> const GraphStats& { return g.stats(); });
}

std::string Input::vertex_id(std::int64_t v) const {
  if (!labels.empty()) return labels[static_cast<std::size_t>(v)];
  return std::to_string(v + 1);
}

std::string Input::id_convention() const {
  if (!labels.empty()) return "labels";
  return "1-based";
}

std::int64_t Input::find_vertex(const std::string& id, const std::string& what) const {
  const std::int64_t n = rows();
  if (labels.empty()) {
    auto v = parse_int(id);
    if (!v || *v < 1 || *v > n) {
      throw InvalidArgument(what + " '" + id + "' is not a vertex of " + name +
                            (n > 0 ? " (ids are 1.." + std::to_string(n) + ", 1-based)"
                                   : " (the graph has no vertices)"));
    }
    return *v - 1;
  }
  if (label_index_.empty()) {
    label_index_.reserve(labels.size());
    for (std::size_t v = 0; v < labels.size(); ++v) {
      label_index_.emplace(labels[v], static_cast<std::int64_t>(v));
    }
  }
  auto it = label_index_.find(id);
  if (it == label_index_.end()) {
    std::string examples;
    for (std::size_t v = 0; v < labels.size() && v < 3; ++v) {
      examples += (v ? ", '" : "'") + labels[v] + "'";
    }
    throw InvalidArgument(what + " '" + id + "' is not a vertex label in " + name +
                          " (labels are the edge list's tokens, compared as text; e.g. " +
                          examples + ")");
  }
  return it->second;
}

void add_input_flags(ArgParser& p, const std::string& weighted_help) {
  p.group("Input");
  p.flag("allow-empty",
         "accept a graph file without edges (an empty stream, /dev/null) as an empty graph "
         "instead of an error");
  p.flag("undirected",
         "add the reverse of every edge (edge lists and general .mtx files; symmetric .mtx "
         "files always have both directions)");
  if (!weighted_help.empty()) p.flag("weighted", weighted_help);
  p.flag("allow-nonfinite", "accept NaN and Inf edge values (refused by default, naming the line)");
  p.flag("headerless",
         "read a .mtx file that lacks the %%MatrixMarket banner: a 'rows cols entries' line, "
         "then 'i j [value]' lines");
  p.flag("ignore-extra-columns",
         "edge lists: ignore columns beyond the first edge line's 'src dst [weight]', on any "
         "line (refused by default, naming the line)");
  p.option("header", "auto|yes|no", "auto",
           "edge lists: whether the first line is a header row such as 'source,target' (auto: "
           "recognized by its words, or by names where the next line has numbers; skipped with "
           "a note)");
  p.option("duplicates", "POLICY", "sum",
           "sum|first|last|max|min|error: the value of an edge given more than once (repeated, "
           "or in both directions of a symmetric .mtx or with --undirected); a warning says how "
           "many were merged");
  p.flag("trust-dimensions",
         ".mtx: take the size line's rows and columns even when far larger than the file's "
         "entries could use (refused by default beyond 8 per byte of the file, at least 2^20, "
         "within the memory available)");
}

InputOptions input_options(const ArgParser& p, ValueMode values) {
  InputOptions o;
  o.values = values;
  o.undirected = p.has("undirected");
  o.allow_nonfinite = p.has("allow-nonfinite");
  o.headerless = p.has("headerless");
  o.ignore_extra_columns = p.has("ignore-extra-columns");
  o.allow_empty = p.has("allow-empty");
  o.trust_dimensions = p.has("trust-dimensions");
  const std::string header = p.choice("header", "auto", {"auto", "yes", "no"});
  o.header = header == "yes"  ? EdgeListHeader::Present
             : header == "no" ? EdgeListHeader::Absent
                              : EdgeListHeader::Auto;
  const std::string dup =
      p.choice("duplicates", "sum", {"sum", "first", "last", "max", "min", "error"});
  o.duplicates = dup == "first"   ? DuplicatePolicy::KeepFirst
                 : dup == "last"  ? DuplicatePolicy::KeepLast
                 : dup == "max"   ? DuplicatePolicy::Max
                 : dup == "min"   ? DuplicatePolicy::Min
                 : dup == "error" ? DuplicatePolicy::Error
                                  : DuplicatePolicy::Default;
  return o;
}

}  // namespace spindle::cli
