// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file networkx_csr.hpp
/// @brief The CSR arrays the networkx walk (networkx.cpp) fills, and the passes over its rows
/// after the walk, without the GIL: sorting each row by column, and copying the values of an
/// undirected graph's lower entries from the upper ones.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace spindle::py::detail {

/// Rows as the walk read them: in each row's dict order, possibly unsorted.
template <class I>
struct Csr {
  std::vector<I> row_ptr;
  std::vector<I> col_idx;
  std::vector<double> values;  // empty without a weight attribute
  bool all_ones = true;
};

/// Sorts `a` (a row's elements, ordered by `key`) by merging its runs, which start at `runs`
/// (with a.size() last): linear for a few runs, n log n at worst. b and merged are scratch.
template <class T, class Key>
void merge_runs(std::vector<T>& a, std::vector<T>& b, std::vector<std::size_t>& runs,
                std::vector<std::size_t>& merged, Key key) {
  const auto less = [&](const T& x, const T& y) { return key(x) < key(y); };
  b.resize(a.size());
  while (runs.size() > 2) {  // merge neighbouring runs of a into b
    merged.assign(1, 0);
    for (std::size_t r = 0; r + 1 < runs.size(); r += 2) {
      const std::size_t lo = runs[r];
      const std::size_t mid = runs[r + 1];
      const std::size_t hi = r + 2 < runs.size() ? runs[r + 2] : mid;
      std::merge(a.begin() + lo, a.begin() + mid, a.begin() + mid, a.begin() + hi, b.begin() + lo,
                 less);
      merged.push_back(hi);
    }
    a.swap(b);
    runs.swap(merged);
  }
}

/// Sorts every row by column, values along (networkx keeps neighbours in insertion order; the
/// engine's rows are sorted). Insertion order is mostly a few sorted runs (an undirected graph
/// built from edges in source order has up to three per row: smaller neighbours added from their
/// rows, its own, larger ones added later), so rows are merged from their runs. R-MAT 16
/// undirected (2 M entries), 1 thread: 26 ms with std::sort on every row, 11 ms merged.
template <class I>
void sort_rows(Csr<I>& c) {
  const auto n = static_cast<std::int64_t>(c.row_ptr.size()) - 1;
  const I* rp = c.row_ptr.data();
  I* col = c.col_idx.data();
  double* val = c.values.empty() ? nullptr : c.values.data();
#pragma omp parallel
  {
    std::vector<I> ca, cb;
    std::vector<std::pair<I, double>> pa, pb;
    std::vector<std::size_t> runs, merged;
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t i = 0; i < n; ++i) {
      I* ci = col + rp[i];
      const auto len = static_cast<std::size_t>(rp[i + 1] - rp[i]);
      runs.assign(1, 0);
      for (std::size_t q = 1; q < len; ++q) {
        if (ci[q] < ci[q - 1]) runs.push_back(q);
      }
      if (runs.size() == 1) continue;
      runs.push_back(len);
      if (val == nullptr) {
        ca.assign(ci, ci + len);
        merge_runs(ca, cb, runs, merged, [](I x) { return x; });
        std::copy(ca.begin(), ca.end(), ci);
        continue;
      }
      double* vi = val + rp[i];
      pa.resize(len);
      for (std::size_t q = 0; q < len; ++q) pa[q] = {ci[q], vi[q]};
      merge_runs(pa, pb, runs, merged, [](const std::pair<I, double>& x) { return x.first; });
      for (std::size_t q = 0; q < len; ++q) {
        ci[q] = pa[q].first;
        vi[q] = pa[q].second;
      }
    }
  }
}

/// The values of entries (i, j), j < i, of an undirected graph: those of (j, i), which the walk
/// read (it skips the lower ones: networkx keeps one dict per undirected edge, in both rows),
/// found by bisection in the sorted row j. False when one is missing: the dicts hold an edge
/// one way only (changed by hand or while they were read); the caller then walks again, reading
/// every entry.
template <class I>
bool mirror_values(Csr<I>& c) {
  const auto n = static_cast<std::int64_t>(c.row_ptr.size()) - 1;
  const I* rp = c.row_ptr.data();
  const I* col = c.col_idx.data();
  double* val = c.values.data();
  std::int64_t missing = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : missing)
  for (std::int64_t i = 0; i < n; ++i) {
    for (I k = rp[i]; k < rp[i + 1] && col[k] < i; ++k) {
      const I* first = col + rp[col[k]];
      const I* last = col + rp[col[k] + 1];
      const I* at = std::lower_bound(first, last, static_cast<I>(i));
      if (at == last || *at != i) {
        ++missing;
      } else {
        val[k] = val[at - col];
      }
    }
  }
  return missing == 0;
}

}  // namespace spindle::py::detail
