// SPDX-License-Identifier: Apache-2.0
#pragma once
// Helpers for the loader tests: temporary files, the shared data folder, an allocation probe,
// and a naive line-by-line Matrix Market parser that serves as the independent oracle.

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <random>

#include "spindle/coo_builder.hpp"
#include "spindle/graph.hpp"

namespace spindle_test {

inline std::string data_dir() { return SPINDLE_DATA_DIR; }
inline std::string graphs_dir() { return data_dir() + "/graphs"; }
inline std::string bad_dir() { return data_dir() + "/bad"; }
inline bool have_data() { return std::ifstream(graphs_dir() + "/karate.mtx").good(); }

#define SPINDLE_REQUIRE_DATA()                                             \
  do {                                                                     \
    if (!::spindle_test::have_data()) {                                    \
      GTEST_SKIP() << "test data folder " << ::spindle_test::data_dir()    \
                   << " not found (set -DSPINDLE_DATA_DIR=...); skipping"; \
    }                                                                      \
  } while (0)

/// A fresh directory under /tmp removed (with its files) at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/spindle_loaders_XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (!d) std::abort();
    path_ = d;
  }
  ~TempDir() { std::system(("rm -rf '" + path_ + "'").c_str()); }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }
  /// Names of the files in the directory (to check no temporaries are left).
  std::vector<std::string> list() const {
    std::vector<std::string> out;
    const std::string cmd = "ls -A '" + path_ + "'";
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, p)) {
        std::string s(buf);
        while (!s.empty() && (s.back() == '\n')) s.pop_back();
        out.push_back(s);
      }
      ::pclose(p);
    }
    return out;
  }

 private:
  std::string path_;
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
}

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Largest single allocation made while the probe is armed (operator new is replaced in
/// allocation_probe.cpp for the whole test binary).
struct AllocationProbe {
  static std::atomic<bool> armed;
  static std::atomic<std::size_t> largest;
  AllocationProbe() {
    largest = 0;
    armed = true;
  }
  ~AllocationProbe() { armed = false; }
  std::size_t max_bytes() const { return largest.load(); }
};

/// What a naive reader makes of a Matrix Market coordinate file.
struct NaiveMm {
  bool ok = false;
  std::string field, symmetry, format;
  std::int64_t rows = 0, cols = 0, declared = 0;
  std::int64_t first_nonfinite_line = 0;  // 0: none
  /// (i, j) -> value summed over duplicates in file order (mirrors included), 0-based.
  std::map<std::pair<std::int64_t, std::int64_t>, double> cells;
};

/// Deliberately simple: istringstream tokens, strtod values; expands symmetry the way the
/// Matrix Market definition says (mirror off-diagonal entries, negated for skew-symmetric).
inline NaiveMm naive_read_mm(const std::string& path) {
  NaiveMm m;
  std::ifstream f(path, std::ios::binary);
  std::string line;
  std::int64_t lineno = 0;
  bool have_size = false;
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  while (std::getline(f, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1) {
      std::istringstream b(line);
      std::string banner, object;
      b >> banner >> object >> m.format >> m.field >> m.symmetry;
      m.format = lower(m.format);
      m.field = lower(m.field);
      m.symmetry = lower(m.symmetry);
      continue;
    }
    std::istringstream t(line);
    std::string first;
    if (!(t >> first) || first[0] == '%') continue;
    if (!have_size) {
      m.rows = std::stoll(first);
      t >> m.cols >> m.declared;
      have_size = true;
      continue;
    }
    std::int64_t i = std::stoll(first) - 1, j = 0;
    t >> j;
    --j;
    double v = 1.0;
    if (m.field != "pattern") {
      std::string tok;
      t >> tok;
      v = std::strtod(tok.c_str(), nullptr);
      if (!std::isfinite(v) && m.first_nonfinite_line == 0) m.first_nonfinite_line = lineno;
    }
    m.cells[{i, j}] += v;
    if (m.symmetry != "general" && i != j) {
      m.cells[{j, i}] += m.symmetry == "skew-symmetric" ? -v : v;
    }
  }
  m.ok = have_size;
  return m;
}

/// Checks a Graph against the naive cells: same shape, same entries, same values (bitwise; NaN
/// matches NaN) unless V is Pattern.
template <class I, class V>
void expect_graph_matches(const spindle::Graph<I, V>& g, const NaiveMm& m,
                          const std::string& what) {
  ASSERT_EQ(static_cast<std::int64_t>(g.rows()), m.rows) << what;
  ASSERT_EQ(static_cast<std::int64_t>(g.cols()), m.cols) << what;
  ASSERT_EQ(static_cast<std::size_t>(g.nnz()), m.cells.size()) << what;
  auto it = m.cells.begin();
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k, ++it) {
      ASSERT_EQ(it->first.first, static_cast<std::int64_t>(i)) << what;
      ASSERT_EQ(it->first.second, static_cast<std::int64_t>(g.col_idx()[k])) << what;
      if constexpr (!spindle::is_pattern_v<V>) {
        const double want = static_cast<V>(it->second);
        const double got = g.values()[k];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got)) << what << " at (" << i << ", " << g.col_idx()[k] << ")";
        } else {
          EXPECT_EQ(got, want) << what << " at (" << i << ", " << g.col_idx()[k] << ")";
        }
      }
    }
  }
}

/// Files of a folder with a given suffix, sorted.
inline std::vector<std::string> files_in(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  const std::string cmd = "ls -1 '" + dir + "' 2>/dev/null";
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    while (std::fgets(buf, sizeof buf, p)) {
      std::string s(buf);
      while (!s.empty() && s.back() == '\n') s.pop_back();
      if (s.size() >= suffix.size() &&
          s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
        out.push_back(s);
      }
    }
    ::pclose(p);
  }
  return out;
}

/// Random coordinates with the shapes that stress readers and writers: empty rows, one dense
/// row, power-law row lengths, duplicates and self-loops. Values span many magnitudes and
/// include negatives, tiny (subnormal) and huge numbers (within float range if asked).
template <class I>
spindle::Coo<I> random_coo(std::int64_t rows, std::int64_t cols, std::int64_t entries,
                           unsigned seed, bool float_range = false) {
  spindle::Coo<I> c;
  c.rows = static_cast<I>(rows);
  c.cols = static_cast<I>(cols);
  if (rows == 0 || cols == 0) return c;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t k = 0; k < entries; ++k) {
    std::int64_t i;
    const double r = u(rng);
    if (k % 7 == 0) {
      i = 0;  // the dense row
    } else {
      i = static_cast<std::int64_t>(std::pow(r, 3.0) * static_cast<double>(rows));  // power law
      if (i >= rows) i = rows - 1;
      if (rows > 4 && i % 4 == 3) i -= 1;  // every 4th row stays empty
    }
    const std::int64_t j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cols));
    double v;
    switch (rng() % 6) {
      case 0:
        v = -u(rng);
        break;
      case 1:
        v = u(rng) * (float_range ? 1e30 : 1e300);
        break;
      case 2:
        v = u(rng) * (float_range ? 1e-40 : 1e-310);  // subnormal
        break;
      case 3:
        v = std::round(u(rng) * 1000.0);
        break;
      default:
        v = (u(rng) - 0.5) * std::pow(10.0, static_cast<double>(rng() % 40) - 20.0);
    }
    c.row.push_back(static_cast<I>(i));
    c.col.push_back(static_cast<I>(j));
    c.val.push_back(v);
  }
  return c;
}

}  // namespace spindle_test
