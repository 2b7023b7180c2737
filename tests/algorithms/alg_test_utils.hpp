// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file alg_test_utils.hpp
/// @brief Random graph families, dense views and data-folder helpers for the algorithm tests.
/// The oracles themselves live in each test file, written with plain dense loops.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"
#include "spindle/loaders/edge_list.hpp"
#include "spindle/loaders/matrix_market.hpp"
#include "spindle/vector.hpp"

namespace spindle::test {

/// Dense row-major adjacency in double: a[i * n + j] = A(i, j) (1 for pattern), 0 elsewhere.
struct Dense {
  std::int64_t n = 0;
  std::vector<double> a;
  double at(std::int64_t i, std::int64_t j) const { return a[i * n + j]; }
  bool has(std::int64_t i, std::int64_t j) const { return present[i * n + j] != 0; }
  std::vector<std::uint8_t> present;
};

template <class I, class V>
Dense to_dense(const Graph<I, V>& g, bool use_values = true) {
  Dense d;
  d.n = g.rows();
  d.a.assign(static_cast<std::size_t>(d.n * d.n), 0.0);
  d.present.assign(d.a.size(), 0);
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      const I j = g.col_idx()[k];
      d.a[i * d.n + j] = use_values ? g.template value_at<double>(k) : 1.0;
      d.present[i * d.n + j] = 1;
    }
  }
  return d;
}

/// The stored entries as a plain list (u, v, value): the oracles' view of a graph that is too
/// large for a dense n x n array, walked with ordinary loops.
struct Edges {
  std::int64_t n = 0;
  struct E {
    std::int64_t u, v;
    double w;
  };
  std::vector<E> e;
};

template <class I, class V>
Edges to_edges(const Graph<I, V>& g, bool use_values = true) {
  Edges out;
  out.n = g.rows();
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      out.e.push_back({i, g.col_idx()[k], use_values ? g.template value_at<double>(k) : 1.0});
    }
  }
  return out;
}

/// Shapes of random graphs every algorithm is checked on.
enum class Family { Uniform, PowerLaw, DenseRow, EmptyRows, SelfLoops, Dag };

inline const char* family_name(Family f) {
  switch (f) {
    case Family::Uniform:
      return "uniform";
    case Family::PowerLaw:
      return "power_law";
    case Family::DenseRow:
      return "dense_row";
    case Family::EmptyRows:
      return "empty_rows";
    case Family::SelfLoops:
      return "self_loops";
    case Family::Dag:
      return "dag";
  }
  return "?";
}

inline constexpr Family kFamilies[] = {Family::Uniform,   Family::PowerLaw,  Family::DenseRow,
                                       Family::EmptyRows, Family::SelfLoops, Family::Dag};

/// Random directed graph of the family with values uniform in [lo, hi). Duplicates are summed
/// (weighted) or collapsed (pattern) by build_graph's defaults.
template <class I, class V>
Graph<I, V> random_graph(Family f, std::int64_t n, std::uint64_t seed, double lo = 0.5,
                         double hi = 2.0) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<std::int64_t> any(0, std::max<std::int64_t>(n - 1, 0));
  std::uniform_real_distribution<double> val(lo, hi);
  Coo<I> coo;
  coo.rows = static_cast<I>(n);
  coo.cols = static_cast<I>(n);
  auto add = [&](std::int64_t i, std::int64_t j) {
    coo.row.push_back(static_cast<I>(i));
    coo.col.push_back(static_cast<I>(j));
    coo.val.push_back(val(gen));
  };
  if (n > 0) {
    switch (f) {
      case Family::Uniform:
        for (std::int64_t e = 0; e < 4 * n; ++e) add(any(gen), any(gen));
        break;
      case Family::PowerLaw:
        // Row i gets about n / (i + 1) entries (Zipf-like out-degrees), targets biased to low ids.
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int64_t len = std::max<std::int64_t>(0, n / (2 * (i + 1)));
          for (std::int64_t e = 0; e < len; ++e) add(i, any(gen) % (1 + any(gen)));
        }
        for (std::int64_t e = 0; e < n; ++e) add(any(gen), any(gen));
        break;
      case Family::DenseRow:
        for (std::int64_t j = 0; j < n; ++j) add(n / 2, j);
        for (std::int64_t e = 0; e < 2 * n; ++e) add(any(gen), any(gen));
        break;
      case Family::EmptyRows:
        // Only even rows have out-edges: half the vertices are dangling.
        for (std::int64_t e = 0; e < 3 * n; ++e) add(any(gen) & ~std::int64_t(1), any(gen));
        break;
      case Family::SelfLoops:
        for (std::int64_t i = 0; i < n; ++i) add(i, i);
        for (std::int64_t e = 0; e < 2 * n; ++e) add(any(gen), any(gen));
        break;
      case Family::Dag:
        for (std::int64_t e = 0; e < 3 * n; ++e) {
          std::int64_t i = any(gen), j = any(gen);
          if (i == j) continue;
          add(std::min(i, j), std::max(i, j));
        }
        break;
    }
  }
  return build_graph<I, V>(std::move(coo));
}

/// Graph from an explicit edge list (0-based; values default to 1).
template <class I, class V>
Graph<I, V> graph_from_edges(std::int64_t n, const std::vector<std::pair<int, int>>& edges,
                             const std::vector<double>& values = {}) {
  Coo<I> coo;
  coo.rows = static_cast<I>(n);
  coo.cols = static_cast<I>(n);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    coo.row.push_back(static_cast<I>(edges[e].first));
    coo.col.push_back(static_cast<I>(edges[e].second));
    coo.val.push_back(values.empty() ? 1.0 : values[e]);
  }
  return build_graph<I, V>(std::move(coo));
}

template <class T>
double l1(const Vector<T>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) s += std::fabs(double(a[std::int64_t(i)]) - b[i]);
  return s;
}

inline std::string data_dir() { return SPINDLE_DATA_DIR; }
inline bool have_data() { return std::filesystem::is_directory(data_dir() + "/graphs"); }
inline std::string graph_path(const std::string& name) { return data_dir() + "/graphs/" + name; }
inline std::string fixture_path(const std::string& name) {
  return std::string(SPINDLE_SOURCE_DIR) + "/tests/fixtures/" + name;
}

/// A graph of the data folder read with the project's conventions, and its vertex names.
template <class V>
struct DataGraph {
  std::string file;
  Graph<std::int32_t, V> graph;
  std::vector<std::string> names;  ///< names[id]: 1-based MM index or edge-list label
};

/// Every file in graphs/ that is a square graph. Skipped (with the reason in `skipped`):
/// headerless, array or complex Matrix Market files, rectangular matrices (not adjacency), and
/// files the reader refuses. NaN/Inf values are kept (allow_nonfinite).
template <class V>
std::vector<DataGraph<V>> load_data_graphs(std::vector<std::string>* skipped = nullptr) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(data_dir() + "/graphs")) {
    const std::string ext = e.path().extension().string();
    if (ext == ".mtx" || ext == ".csv" || ext == ".txt") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<DataGraph<V>> out;
  auto skip = [&](const std::string& f, const std::string& why) {
    if (skipped) skipped->push_back(fs::path(f).filename().string() + ": " + why);
  };
  for (const auto& f : files) {
    DataGraph<V> g;
    g.file = fs::path(f).filename().string();
    if (g.file.size() >= 4 && g.file.substr(g.file.size() - 4) == ".mtx") {
      MatrixMarketHeader h;
      try {
        h = read_matrix_market_header(f);
      } catch (const Error& e) {
        skip(f, std::string("header refused: ") + e.what());
        continue;
      }
      if (h.format != MmFormat::Coordinate) {
        skip(f, "array format");
        continue;
      }
      if (h.field == MmField::Complex) {
        skip(f, "complex");
        continue;
      }
      if (h.rows != h.cols) {
        skip(f, "rectangular");
        continue;
      }
      try {
        // NaN/Inf values do not change the structure, and several tests only use that;
        // tests that use the values check them (e.g. SSSP needs non-negative weights).
        MatrixMarketOptions mo;
        mo.allow_nonfinite = true;
        g.graph = read_matrix_market<std::int32_t, V>(f, mo);
      } catch (const Error& e) {
        skip(f, std::string("refused by the reader: ") + e.what());
        continue;
      }
      for (std::int64_t i = 0; i < h.rows; ++i) g.names.push_back(std::to_string(i + 1));
    } else {
      auto r = read_edge_list<std::int32_t, V>(f);
      g.graph = r.graph;
      g.names = r.labels;
    }
    out.push_back(std::move(g));
  }
  return out;
}

#define SPINDLE_REQUIRE_DATA()                                                        \
  do {                                                                                \
    if (!::spindle::test::have_data()) {                                              \
      GTEST_SKIP() << "shared test data not found at " << ::spindle::test::data_dir() \
                   << "/graphs (set -DSPINDLE_DATA_DIR)";                             \
    }                                                                                 \
  } while (0)

}  // namespace spindle::test
