// SPDX-License-Identifier: Apache-2.0
/// @file graph.cpp
/// @brief The engine graph (`spindle._core.Graph`): building it from CSR or coordinate arrays,
/// read-only numpy views of its arrays, its cached derived data, the file readers and writers,
/// and the generators.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

// Edge-list lines hold at least 4 bytes ("a b\n"): file size / 4 bounds the entry count, so the
// index type is chosen before reading (the CLI's rule).
constexpr std::int64_t kMinEdgeLineBytes = 4;

// A read-only numpy view of one of g's arrays, keeping g's storage alive.
template <class T, class G>
nb::object view_of(const G& g, const std::vector<T>& array) {
  auto* keep = new G(g);  // shares g's storage
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<G*>(p); });
  const std::size_t shape[1] = {array.size()};
  return nb::cast(nb::ndarray<nb::numpy, const T>(array.data(), 1, shape, owner));
}

template <class I, class V>
PyGraph from_csr_typed(std::int64_t rows, std::int64_t cols, const Array1& indptr,
                       const Array1& indices, const std::optional<Array1>& data) {
  using G = Graph<I, V>;
  using Stored = typename G::stored_value_type;
  const I r = checked_cast<I>(rows, "rows");
  const I c = checked_cast<I>(cols, "cols");
  std::vector<I> row_ptr = to_std<I>(indptr, "indptr");
  std::vector<I> col_idx = to_std<I>(indices, "indices");
  std::vector<Stored> values;
  if constexpr (!G::is_pattern) {
    if (!data) throw InvalidArgument("from_csr: a valued graph needs its values");
    values = to_std<V>(*data, "data");
  }
  nb::gil_scoped_release release;
  return PyGraph{G(r, c, std::move(row_ptr), std::move(col_idx), std::move(values))};
}

DuplicatePolicy parse_duplicates(const std::string& name) {
  if (name == "default") return DuplicatePolicy::Default;
  if (name == "sum") return DuplicatePolicy::Sum;
  if (name == "first") return DuplicatePolicy::KeepFirst;
  if (name == "last") return DuplicatePolicy::KeepLast;
  if (name == "collapse") return DuplicatePolicy::Collapse;
  if (name == "error") return DuplicatePolicy::Error;
  throw InvalidArgument("unknown duplicates policy '" + name +
                        "' (known: default, sum, first, last, collapse, error)");
}

template <class I, class V>
PyGraph from_coo_typed(std::int64_t rows, std::int64_t cols, const Array1& row, const Array1& col,
                       const std::optional<Array1>& data, const BuildOptions& options) {
  Coo<I> coo;
  coo.rows = checked_cast<I>(rows, "rows");
  coo.cols = checked_cast<I>(cols, "cols");
  coo.row = to_std<I>(row, "row");
  coo.col = to_std<I>(col, "col");
  if (coo.row.size() != coo.col.size()) {
    throw DimensionMismatch("from_coo: " + std::to_string(coo.row.size()) + " rows but " +
                            std::to_string(coo.col.size()) + " columns");
  }
  if (data) {
    coo.val = to_std<double>(*data, "data");
    if (coo.val.size() != coo.row.size()) {
      throw DimensionMismatch("from_coo: " + std::to_string(coo.val.size()) + " values for " +
                              std::to_string(coo.row.size()) + " entries");
    }
  } else if (!is_pattern_v<V>) {
    coo.val.assign(coo.row.size(), 1.0);
  }
  nb::gil_scoped_release release;
  return PyGraph{build_graph<I, V>(std::move(coo), options)};
}

template <class G>
nb::dict stats_dict(const G& g) {
  GraphStats s;
  {
    nb::gil_scoped_release release;
    s = g.stats();
  }
  nb::dict d;
  d["rows"] = s.rows;
  d["cols"] = s.cols;
  d["nnz"] = s.nnz;
  d["avg_row"] = s.avg_row;
  d["stdv_row"] = s.stdv_row;
  d["max_row"] = s.max_row;
  d["min_row"] = s.min_row;
  d["empty_rows"] = s.empty_rows;
  d["self_loops"] = s.self_loops;
  d["imbalance"] = s.imbalance();
  d["col_imbalance_est"] = s.col_imbalance_est;
  d["rows_by_log2_length"] = nb::cast(s.rows_by_log2_length);
  return d;
}

// What a file read gives back to Python.
struct ReadResult {
  PyGraph graph;
  std::optional<std::vector<std::string>> labels;
  bool labels_are_integers = true;
  std::string format;
  bool file_has_values = false;
};

struct ReadOptions {
  std::optional<std::string> index_dtype;
  std::optional<std::string> value_dtype;  // nullopt: values when the file has them
  bool undirected = false;
  bool allow_nonfinite = false;
  bool headerless = false;
  bool ignore_extra_columns = false;
};

template <class I>
void read_matrix_market_as(ReadResult& out, const std::string& path, const ReadOptions& o,
                           const std::string& value_dtype) {
  MatrixMarketOptions mo;
  mo.build.symmetrize = o.undirected;
  mo.headerless = o.headerless;
  mo.allow_nonfinite = o.allow_nonfinite;
  mo.progress = false;
  visit_value(value_dtype, [&](auto v) {
    using V = decltype(v);
    out.graph = PyGraph{read_matrix_market<I, V>(path, mo)};
  });
}

template <class I>
void read_edge_list_as(ReadResult& out, const std::string& path, const ReadOptions& o) {
  EdgeListOptions eo;
  eo.allow_nonfinite = o.allow_nonfinite;
  eo.ignore_extra_columns = o.ignore_extra_columns;
  eo.progress = false;
  EdgeListCoo<I> raw = read_edge_list_coo<I>(path, eo);
  out.labels = std::move(raw.labels);
  out.labels_are_integers = raw.labels_are_integers;
  out.file_has_values = raw.weighted;
  BuildOptions bo;
  bo.symmetrize = o.undirected;
  const std::string value_dtype = o.value_dtype.value_or(raw.weighted ? "float64" : "pattern");
  visit_value(value_dtype, [&](auto v) {
    using V = decltype(v);
    out.graph = PyGraph{build_graph<I, V>(std::move(raw.coo), bo)};
  });
}

template <class I>
void read_spg_as(ReadResult& out, const std::string& path, const ReadOptions& o,
                 const std::string& value_dtype) {
  SpgReadOptions so;
  so.allow_nonfinite = o.allow_nonfinite;
  so.build.symmetrize = o.undirected;
  visit_value(value_dtype, [&](auto v) {
    using V = decltype(v);
    SpgResult<I, V> r = read_spg<I, V>(path, so);
    out.labels_are_integers = r.header.labels_are_integers || r.labels.empty();
    if (!r.labels.empty()) out.labels = std::move(r.labels);
    out.graph = PyGraph{std::move(r.graph)};
  });
}

ReadResult read_graph(const std::string& path, const ReadOptions& o) {
  ReadResult out;
  // A pipe or process substitution is read once and held: sniffing, header and body each open it.
  const InputStreamCapture capture(path);
  const GraphFileFormat format = guess_graph_format(path);
  if (format == GraphFileFormat::Spg) {
    // Spindle's binary CSR: index and value types as stored unless asked otherwise.
    out.format = "spg";
    const SpgHeader h = read_spg_header(path);
    out.file_has_values = h.values != ValueKind::Pattern;
    const bool big = h.index == IndexKind::Int64 || (o.undirected && h.nnz > kInt32Max / 2);
    const std::string index = o.index_dtype.value_or(big ? "int64" : "int32");
    const std::string stored = h.values == ValueKind::Float    ? "float32"
                               : h.values == ValueKind::Double ? "float64"
                                                               : "pattern";
    const std::string value = o.value_dtype.value_or(stored);
    visit_index(index, [&](auto i) { read_spg_as<decltype(i)>(out, path, o, value); });
  } else if (format == GraphFileFormat::MatrixMarket) {
    out.format = "matrix_market";
    const MatrixMarketHeader h = read_matrix_market_header(path, o.headerless);
    if (h.format == MmFormat::Array) {
      throw Unsupported(path + ": a dense " + std::to_string(h.rows) + " x " +
                        std::to_string(h.cols) +
                        " matrix (Matrix Market 'array' format); a graph needs a sparse "
                        "'coordinate' file (numpy reads dense arrays)");
    }
    out.file_has_values = h.field != MmField::Pattern;
    const std::int64_t mirror = h.symmetry == MmSymmetry::General && !o.undirected ? 1 : 2;
    const bool big = h.rows > kInt32Max || h.cols > kInt32Max || h.entries > kInt32Max / mirror;
    const std::string index = o.index_dtype.value_or(big ? "int64" : "int32");
    const std::string value = o.value_dtype.value_or(out.file_has_values ? "float64" : "pattern");
    visit_index(index, [&](auto i) { read_matrix_market_as<decltype(i)>(out, path, o, value); });
  } else {
    out.format = "edge_list";
    std::error_code ec;
    auto bytes = static_cast<std::int64_t>(std::filesystem::file_size(path, ec));
    if (capture.active()) {
      bytes = capture.bytes();
      ec.clear();
    }
    const std::int64_t bound = ec ? 0 : bytes / kMinEdgeLineBytes * (o.undirected ? 2 : 1);
    const std::string index = o.index_dtype.value_or(bound > kInt32Max ? "int64" : "int32");
    visit_index(index, [&](auto i) { read_edge_list_as<decltype(i)>(out, path, o); });
  }
  return out;
}

template <class I, class V>
PyGraph generate(const std::string& kind, int scale, std::int64_t edge_factor, std::uint64_t seed,
                 const RmatParams& params, const BuildOptions& build) {
  Coo<I> coo = kind == "rmat" ? generate_rmat<I>(scale, edge_factor, seed, params)
                              : generate_uniform<I>(scale, edge_factor, seed);
  return PyGraph{build_graph<I, V>(std::move(coo), build)};
}

}  // namespace

void bind_graph(nb::module_& m) {
  nb::class_<PyGraph>(m, "Graph",
                      "An immutable CSR graph of the engine (int32/int64 indices; float32, "
                      "float64 or pattern values). Use spindle.Graph, which wraps it.")
      .def_static(
          "from_csr",
          [](std::int64_t rows, std::int64_t cols, const Array1& indptr, const Array1& indices,
             const std::optional<Array1>& data, const std::string& index_dtype,
             const std::string& value_dtype) {
            return visit_index(index_dtype, [&](auto i) {
              return visit_value(value_dtype, [&](auto v) {
                return from_csr_typed<decltype(i), decltype(v)>(rows, cols, indptr, indices, data);
              });
            });
          },
          nb::arg("rows"), nb::arg("cols"), nb::arg("indptr"), nb::arg("indices"),
          nb::arg("data").none(), nb::arg("index_dtype"), nb::arg("value_dtype"),
          "A graph adopting a copy of sorted, duplicate-free CSR arrays (validated).")
      .def_static(
          "from_coo",
          [](std::int64_t rows, std::int64_t cols, const Array1& row, const Array1& col,
             const std::optional<Array1>& data, const std::string& index_dtype,
             const std::string& value_dtype, const std::string& duplicates, bool drop_self_loops,
             bool symmetrize, bool allow_nonfinite) {
            BuildOptions b;
            b.duplicates = parse_duplicates(duplicates);
            b.self_loops = drop_self_loops ? SelfLoopPolicy::Drop : SelfLoopPolicy::Keep;
            b.symmetrize = symmetrize;
            b.allow_nonfinite = allow_nonfinite;
            return visit_index(index_dtype, [&](auto i) {
              return visit_value(value_dtype, [&](auto v) {
                return from_coo_typed<decltype(i), decltype(v)>(rows, cols, row, col, data, b);
              });
            });
          },
          nb::arg("rows"), nb::arg("cols"), nb::arg("row"), nb::arg("col"), nb::arg("data").none(),
          nb::arg("index_dtype"), nb::arg("value_dtype"), nb::arg("duplicates"),
          nb::arg("drop_self_loops"), nb::arg("symmetrize"), nb::arg("allow_nonfinite"),
          "A graph built from coordinate entries (sorted, duplicates resolved by the policy).")
      .def_prop_ro(
          "nrows",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return std::int64_t(a.rows()); }, g.g);
          },
          "Rows (vertices of a square graph).")
      .def_prop_ro(
          "ncols",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return std::int64_t(a.cols()); }, g.g);
          },
          "Columns.")
      .def_prop_ro(
          "nnz",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return std::int64_t(a.nnz()); }, g.g);
          },
          "Stored entries (edges).")
      .def_prop_ro(
          "index_dtype",
          [](const PyGraph& g) {
            return std::visit(
                [](const auto& a) {
                  return std::string(dtype_name<typename std::decay_t<decltype(a)>::index_type>());
                },
                g.g);
          },
          "'int32' or 'int64'.")
      .def_prop_ro(
          "value_dtype",
          [](const PyGraph& g) {
            return std::visit(
                [](const auto& a) {
                  return std::string(dtype_name<typename std::decay_t<decltype(a)>::value_type>());
                },
                g.g);
          },
          "'float32', 'float64' or 'pattern'.")
      .def(
          "indptr",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return view_of(a, a.row_ptr()); }, g.g);
          },
          "Read-only view of the row offsets (no copy).")
      .def(
          "indices",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return view_of(a, a.col_idx()); }, g.g);
          },
          "Read-only view of the column indices (no copy).")
      .def(
          "data",
          [](const PyGraph& g) -> nb::object {
            return std::visit(
                [](const auto& a) -> nb::object {
                  using G = std::decay_t<decltype(a)>;
                  if constexpr (G::is_pattern) {
                    return nb::none();
                  } else {
                    return view_of(a, a.values());
                  }
                },
                g.g);
          },
          "Read-only view of the values (no copy); None for a pattern graph.")
      .def(
          "stats",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return stats_dict(a); }, g.g);
          },
          "Row-length statistics (cached with the graph).")
      .def(
          "transpose",
          [](const PyGraph& g) {
            nb::gil_scoped_release release;
            return std::visit([](const auto& a) { return PyGraph{a.transpose()}; }, g.g);
          },
          "The transpose (built once and cached with the graph).")
      .def(
          "has_transpose",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return a.has_transpose(); }, g.g);
          },
          "Whether the cached transpose exists already.")
      .def(
          "with_values",
          [](const PyGraph& g, const std::string& value_dtype) {
            return visit_value(value_dtype, [&](auto v) {
              using W = decltype(v);
              nb::gil_scoped_release release;
              return std::visit([](const auto& a) { return PyGraph{a.template with_values<W>()}; },
                                g.g);
            });
          },
          nb::arg("value_dtype"), "The same structure with values converted (or dropped).")
      .def(
          "out_degrees",
          [](const PyGraph& g) {
            return std::visit(
                [](const auto& a) {
                  auto d = a.out_degrees();  // a copy of the cached degrees
                  return numpy_from(std::move(d));
                },
                g.g);
          },
          "Stored entries per row.")
      .def(
          "in_degrees",
          [](const PyGraph& g) {
            return std::visit(
                [](const auto& a) {
                  auto d = a.in_degrees();
                  return numpy_from(std::move(d));
                },
                g.g);
          },
          "Stored entries per column.")
      .def_prop_ro(
          "nbytes",
          [](const PyGraph& g) {
            return std::visit([](const auto& a) { return std::int64_t(a.bytes()); }, g.g);
          },
          "Bytes of the CSR arrays.");

  nb::class_<ReadResult>(m, "ReadResult")
      .def_ro("graph", &ReadResult::graph)
      .def_ro("labels", &ReadResult::labels)
      .def_ro("labels_are_integers", &ReadResult::labels_are_integers)
      .def_ro("format", &ReadResult::format)
      .def_ro("file_has_values", &ReadResult::file_has_values);

  m.def(
      "read",
      [](const std::string& path, std::optional<std::string> index_dtype,
         std::optional<std::string> value_dtype, bool undirected, bool allow_nonfinite,
         bool headerless, bool ignore_extra_columns) {
        ReadOptions o{
            std::move(index_dtype), std::move(value_dtype), undirected, allow_nonfinite, headerless,
            ignore_extra_columns};
        nb::gil_scoped_release release;
        return read_graph(path, o);
      },
      nb::arg("path"), nb::arg("index_dtype").none(), nb::arg("value_dtype").none(),
      nb::arg("undirected"), nb::arg("allow_nonfinite"), nb::arg("headerless"),
      nb::arg("ignore_extra_columns"), "Reads a Matrix Market file, an edge list or a .spg file.");

  m.def(
      "write",
      [](const std::string& path, const PyGraph& g, const std::string& format,
         const std::vector<std::string>& labels) {
        const GraphFileFormat f = format == "edge_list" ? GraphFileFormat::EdgeList
                                  : format == "spg"     ? GraphFileFormat::Spg
                                                        : GraphFileFormat::MatrixMarket;
        nb::gil_scoped_release release;
        std::visit([&](const auto& a) { save_graph(path, a, f, labels); }, g.g);
      },
      nb::arg("path"), nb::arg("graph"), nb::arg("format"), nb::arg("labels"),
      "Writes a graph atomically (temporary file, then rename).");

  m.def(
      "generate",
      [](const std::string& kind, int scale, std::int64_t edge_factor, std::uint64_t seed, double a,
         double b, double c, bool scramble, const std::string& index_dtype,
         const std::string& value_dtype, bool drop_self_loops) {
        if (kind != "rmat" && kind != "uniform") {
          throw InvalidArgument("generate: kind must be 'rmat' or 'uniform'");
        }
        RmatParams p;
        p.a = a;
        p.b = b;
        p.c = c;
        p.scramble = scramble;
        BuildOptions build;
        build.self_loops = drop_self_loops ? SelfLoopPolicy::Drop : SelfLoopPolicy::Keep;
        return visit_index(index_dtype, [&](auto i) {
          return visit_value(value_dtype, [&](auto v) {
            nb::gil_scoped_release release;
            return generate<decltype(i), decltype(v)>(kind, scale, edge_factor, seed, p, build);
          });
        });
      },
      nb::arg("kind"), nb::arg("scale"), nb::arg("edge_factor"), nb::arg("seed"), nb::arg("a"),
      nb::arg("b"), nb::arg("c"), nb::arg("scramble"), nb::arg("index_dtype"),
      nb::arg("value_dtype"), nb::arg("drop_self_loops"),
      "A deterministic R-MAT or uniform random graph.");

  m.def(
      "add_identity",
      [](const PyGraph& g) {
        nb::gil_scoped_release release;
        return std::visit([](const auto& a) { return PyGraph{add_identity(a)}; }, g.g);
      },
      nb::arg("graph"), "A + I: every missing diagonal entry added with value 1.");
}

}  // namespace spindle::py
