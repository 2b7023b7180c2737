// SPDX-License-Identifier: Apache-2.0
#include "spindle/coo_builder.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <type_traits>

#include "spindle/debug/allocation.hpp"
#include "spindle/detail/host_pages.hpp"

namespace spindle {

const char* to_string(DuplicatePolicy p) {
  switch (p) {
    case DuplicatePolicy::Default:
      return "default";
    case DuplicatePolicy::Sum:
      return "sum";
    case DuplicatePolicy::KeepFirst:
      return "keep-first";
    case DuplicatePolicy::KeepLast:
      return "keep-last";
    case DuplicatePolicy::Collapse:
      return "collapse";
    case DuplicatePolicy::Error:
      return "error";
    case DuplicatePolicy::Max:
      return "max";
    case DuplicatePolicy::Min:
      return "min";
  }
  return "?";
}

namespace {

// First k in [0, n) with pred(k) true, or n. Parallel, deterministic (smallest index wins).
template <class Pred>
std::int64_t first_where(std::int64_t n, Pred pred) {
  std::int64_t first = n;
#pragma omp parallel for schedule(static) reduction(min : first)
  for (std::int64_t k = 0; k < n; ++k) {
    if (k < first && pred(k)) first = k;
  }
  return first;
}

}  // namespace

template <class I, class V>
Graph<I, V> build_graph(Coo<I> coo, const BuildOptions& options) {
  constexpr bool pattern = is_pattern_v<V>;
  const std::int64_t n_in = coo.size();
  const I rows = coo.rows, cols = coo.cols;
  if (rows < 0 || cols < 0) {
    throw InvalidArgument("build_graph: negative shape " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  }
  if (coo.col.size() != coo.row.size() || (!coo.val.empty() && coo.val.size() != coo.row.size())) {
    throw InvalidArgument("build_graph: row, col and value arrays differ in length");
  }
  if (options.symmetrize && rows != cols) {
    throw InvalidArgument("build_graph: symmetrize needs a square shape, got " +
                          std::to_string(rows) + " x " + std::to_string(cols));
  }
  const bool have_vals = !coo.val.empty();
  {
    const I* r = coo.row.data();
    const I* c = coo.col.data();
    const std::int64_t bad = first_where(
        n_in, [&](std::int64_t k) { return r[k] < 0 || r[k] >= rows || c[k] < 0 || c[k] >= cols; });
    if (bad < n_in) {
      throw IndexOutOfBounds("build_graph: entry " + std::to_string(bad) + " (0-based) at (" +
                             std::to_string(r[bad]) + ", " + std::to_string(c[bad]) +
                             ") lies outside the " + std::to_string(rows) + " x " +
                             std::to_string(cols) + " shape");
    }
    if (have_vals && !options.allow_nonfinite) {
      const double* v = coo.val.data();
      const std::int64_t nf =
          first_where(n_in, [&](std::int64_t k) { return !std::isfinite(v[k]); });
      if (nf < n_in) {
        throw InvalidArgument("build_graph: entry " + std::to_string(nf) + " at (" +
                              std::to_string(r[nf]) + ", " + std::to_string(c[nf]) +
                              ") is not finite (" + std::to_string(v[nf]) + ")");
      }
    }
  }

  // Expand: drop self-loops if asked, append mirrors right after their entry so that "first"
  // keeps meaning input order.
  const bool drop_loops = options.self_loops == SelfLoopPolicy::Drop;
  if (drop_loops || options.symmetrize) {
    std::vector<I> r2, c2;
    std::vector<double> v2;
    std::int64_t extra = 0;
    for (std::int64_t k = 0; k < n_in; ++k) {
      if (coo.row[k] != coo.col[k]) ++extra;
    }
    const std::int64_t cap = (drop_loops ? extra : n_in) + (options.symmetrize ? extra : 0);
    // Refuse before allocating twice the input for entries the index type cannot hold.
    if (cap > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
      throw InvalidArgument("build_graph: " + std::to_string(cap) +
                            " entries do not fit the index type; use int64 indices");
    }
    detail::large_reserve(r2, static_cast<std::size_t>(cap), "build_graph: expanded rows");
    detail::large_reserve(c2, static_cast<std::size_t>(cap), "build_graph: expanded columns");
    if (have_vals) {
      detail::large_reserve(v2, static_cast<std::size_t>(cap), "build_graph: expanded values");
    }
    for (std::int64_t k = 0; k < n_in; ++k) {
      const I i = coo.row[k], j = coo.col[k];
      if (i == j && drop_loops) continue;
      r2.push_back(i);
      c2.push_back(j);
      if (have_vals) v2.push_back(coo.val[k]);
      if (options.symmetrize && i != j) {
        r2.push_back(j);
        c2.push_back(i);
        if (have_vals) v2.push_back(coo.val[k]);
      }
    }
    coo.row = std::move(r2);
    coo.col = std::move(c2);
    coo.val = std::move(v2);
  }
  const std::int64_t n = static_cast<std::int64_t>(coo.row.size());
  if (n > static_cast<std::int64_t>(std::numeric_limits<I>::max())) {
    throw InvalidArgument("build_graph: " + std::to_string(n) +
                          " entries do not fit the index type; use int64 indices");
  }

  // Entries by row: the row offsets, and the columns (and values) in row order, input order kept
  // within a row.
  std::vector<std::int64_t> row_start;
  std::vector<I> scol;
  std::vector<double> sval;
  const I* in_row = coo.row.data();
  if (first_where(n - 1, [&](std::int64_t k) { return in_row[k] > in_row[k + 1]; }) >= n - 1) {
    // Already in row order (files written row by row, as spindle writes them): the sort below
    // would move nothing, and its per-block counters alone take blocks x rows x 8 bytes (0.5 GB
    // for R-MAT 22 on 16 threads). The offsets come from where each row starts, and the input
    // arrays are taken as they are.
    row_start = detail::large_workspace<std::int64_t>(static_cast<std::size_t>(rows) + 1,
                                                      "build_graph: row offsets");
    // Rows (row[k - 1], row[k]] start at k; each row's offset is written by one k only.
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t first = k == 0 ? 0 : static_cast<std::int64_t>(in_row[k - 1]) + 1;
      for (std::int64_t i = first; i <= static_cast<std::int64_t>(in_row[k]); ++i) row_start[i] = k;
    }
    const std::int64_t after = n == 0 ? 0 : static_cast<std::int64_t>(in_row[n - 1]) + 1;
    for (std::int64_t i = after; i <= static_cast<std::int64_t>(rows); ++i) row_start[i] = n;
    scol = std::move(coo.col);
    sval = std::move(coo.val);
  } else {
    // Stable counting sort by row, blocked over threads for determinism: each block's entries of
    // a row land after the previous block's, in input order.
    const int nb =
        std::max(1, std::min<int>(omp_get_max_threads(),
                                  static_cast<int>(std::max<std::int64_t>(1, n / 65536))));
    std::vector<std::vector<std::int64_t>> counts(nb);
    // Reserve outside the parallel region (an exception must not leave it); the threads then
    // zero their own block (first touch) without reallocating.
    for (auto& c : counts) {
      detail::checked_reserve(c, static_cast<std::size_t>(rows), "build_graph: row counts");
    }
#pragma omp parallel for num_threads(nb) schedule(static, 1)
    for (int b = 0; b < nb; ++b) {
      auto& c = counts[b];
      c.assign(static_cast<std::size_t>(rows), 0);
      for (std::int64_t k = n * b / nb; k < n * (b + 1) / nb; ++k) ++c[coo.row[k]];
    }
    row_start = detail::large_workspace<std::int64_t>(static_cast<std::size_t>(rows) + 1,
                                                      "build_graph: row offsets");
    // Offsets in (row, block) order, in three passes of which only the scan of row totals is
    // sequential. One sequential pass over rows x blocks (nb strided counts per row) was a third
    // of reading R-MAT 22 on 16 threads: the whole read took 694-754 ms with it, 447-516 without.
#pragma omp parallel for num_threads(nb) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
      std::int64_t total = 0;
      for (int b = 0; b < nb; ++b) total += counts[b][i];
      row_start[i + 1] = total;
    }
    row_start[0] = 0;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
      row_start[i + 1] += row_start[i];
    }
#pragma omp parallel for num_threads(nb) schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
      std::int64_t running = row_start[i];
      for (int b = 0; b < nb; ++b) {
        const std::int64_t c = counts[b][i];
        counts[b][i] = running;
        running += c;
      }
    }
    scol = detail::large_workspace<I>(static_cast<std::size_t>(n), "build_graph: sorted columns");
    sval = detail::large_workspace<double>(have_vals ? static_cast<std::size_t>(n) : 0,
                                           "build_graph: sorted values");
#pragma omp parallel for num_threads(nb) schedule(static, 1)
    for (int b = 0; b < nb; ++b) {
      auto& pos = counts[b];
      for (std::int64_t k = n * b / nb; k < n * (b + 1) / nb; ++k) {
        const std::int64_t dst = pos[coo.row[k]]++;
        scol[dst] = coo.col[k];
        if (have_vals) sval[dst] = coo.val[k];
      }
    }
    counts.clear();
    counts.shrink_to_fit();
    coo.col.clear();
    coo.col.shrink_to_fit();
    coo.val.clear();
    coo.val.shrink_to_fit();
  }
  coo.row.clear();
  coo.row.shrink_to_fit();

  DuplicatePolicy dup = options.duplicates;
  if (dup == DuplicatePolicy::Default)
    dup = pattern ? DuplicatePolicy::Collapse : DuplicatePolicy::Sum;
  if (pattern && dup != DuplicatePolicy::Error) dup = DuplicatePolicy::Collapse;

  // Sort each row by column (stable) and resolve duplicates in place; record the kept length.
  auto row_len =
      detail::large_workspace<I>(static_cast<std::size_t>(rows), "build_graph: row lengths");
  std::int64_t dup_row = std::numeric_limits<std::int64_t>::max();
  // The per-thread sort buffers grow inside the parallel region, where an exception must not
  // escape: a failed allocation is recorded and turned into OutOfMemory after the region.
  bool sort_buffers_failed = false;
#pragma omp parallel
  {
    std::vector<std::int64_t> perm;
    std::vector<I> tmp_c;
    std::vector<double> tmp_v;
#pragma omp for schedule(dynamic, 1024) reduction(min : dup_row)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
      const std::int64_t b = row_start[i], e = row_start[i + 1], len = e - b;
      if (len == 0) continue;
      try {
        bool sorted = true;
        for (std::int64_t k = b + 1; k < e && sorted; ++k) sorted = scol[k - 1] <= scol[k];
        if (!sorted) {
          perm.resize(static_cast<std::size_t>(len));
          std::iota(perm.begin(), perm.end(), b);
          std::stable_sort(perm.begin(), perm.end(),
                           [&](std::int64_t x, std::int64_t y) { return scol[x] < scol[y]; });
          tmp_c.resize(static_cast<std::size_t>(len));
          for (std::int64_t t = 0; t < len; ++t) tmp_c[t] = scol[perm[t]];
          std::copy(tmp_c.begin(), tmp_c.end(), scol.begin() + b);
          if (have_vals) {
            tmp_v.resize(static_cast<std::size_t>(len));
            for (std::int64_t t = 0; t < len; ++t) tmp_v[t] = sval[perm[t]];
            std::copy(tmp_v.begin(), tmp_v.end(), sval.begin() + b);
          }
        }
      } catch (const std::bad_alloc&) {
#pragma omp atomic write
        sort_buffers_failed = true;
        continue;
      }
      std::int64_t out = b;
      for (std::int64_t k = b + 1; k < e; ++k) {
        if (scol[k] == scol[out]) {
          if (dup == DuplicatePolicy::Error) {
            dup_row = std::min(dup_row, i);
            break;
          }
          if (have_vals) {
            if (dup == DuplicatePolicy::Sum)
              sval[out] += sval[k];
            else if (dup == DuplicatePolicy::KeepLast)
              sval[out] = sval[k];
            else if (dup == DuplicatePolicy::Max && sval[k] > sval[out])
              sval[out] = sval[k];
            else if (dup == DuplicatePolicy::Min && sval[k] < sval[out])
              sval[out] = sval[k];
          }
        } else {
          ++out;
          scol[out] = scol[k];
          if (have_vals) sval[out] = sval[k];
        }
      }
      row_len[i] = static_cast<I>(out - b + 1);
    }
  }
  if (sort_buffers_failed) {
    std::int64_t longest = 0;
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
      longest = std::max(longest, row_start[i + 1] - row_start[i]);
    }
    detail::throw_host_out_of_memory(
        static_cast<std::uint64_t>(longest) * (sizeof(std::int64_t) + sizeof(I) + sizeof(double)),
        "build_graph: row sort buffers");
  }
  if (dup_row != std::numeric_limits<std::int64_t>::max()) {
    std::int64_t b = row_start[dup_row];
    std::int64_t j = 0;
    for (std::int64_t k = b + 1; k < row_start[dup_row + 1]; ++k) {
      if (scol[k] == scol[k - 1]) {
        j = scol[k];
        break;
      }
    }
    throw InvalidArgument("build_graph: duplicate entry (" + std::to_string(dup_row) + ", " +
                          std::to_string(j) + ") (0-based) and the duplicate policy is 'error'");
  }

  auto row_ptr =
      detail::large_workspace<I>(static_cast<std::size_t>(rows) + 1, "build_graph: row_ptr");
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i)
    row_ptr[i + 1] = row_ptr[i] + row_len[i];
  const std::int64_t nnz = static_cast<std::int64_t>(row_ptr[rows]);
  if (options.report) options.report->merged_duplicates = n - nnz;
  using SV = typename Graph<I, V>::stored_value_type;
  if (nnz == n) {
    // No entry was merged away: every row kept its entries where the sort put them, so the
    // sorted columns are the graph's (a 4-byte-per-entry copy and its fresh pages saved; most
    // files hold no duplicates), and so are the values when they are already doubles.
    std::vector<SV> values;
    if constexpr (std::is_same_v<SV, double>) {
      if (have_vals) values = std::move(sval);
    }
    if (!pattern && values.size() != static_cast<std::size_t>(n)) {
      values = detail::large_workspace<SV>(static_cast<std::size_t>(n), "build_graph: values");
      SV* out = values.data();
      const double* in = sval.data();
#pragma omp parallel for schedule(static)
      for (std::int64_t k = 0; k < n; ++k) out[k] = have_vals ? static_cast<SV>(in[k]) : SV(1);
    }
    return Graph<I, V>(rows, cols, std::move(row_ptr), std::move(scol), std::move(values));
  }
  auto col_idx = detail::large_workspace<I>(static_cast<std::size_t>(nnz), "build_graph: col_idx");
  auto values = detail::large_workspace<SV>(pattern ? 0 : static_cast<std::size_t>(nnz),
                                            "build_graph: values");
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows); ++i) {
    const std::int64_t src = row_start[i];
    const std::int64_t dst = row_ptr[i];
    for (std::int64_t t = 0; t < static_cast<std::int64_t>(row_len[i]); ++t) {
      col_idx[dst + t] = scol[src + t];
      if constexpr (!pattern) values[dst + t] = have_vals ? static_cast<SV>(sval[src + t]) : SV(1);
    }
  }
  return Graph<I, V>(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values));
}

#define SPINDLE_INSTANTIATE_BUILD(I, V) \
  template Graph<I, V> build_graph<I, V>(Coo<I>, const BuildOptions&);
SPINDLE_INSTANTIATE_BUILD(std::int32_t, float)
SPINDLE_INSTANTIATE_BUILD(std::int32_t, double)
SPINDLE_INSTANTIATE_BUILD(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_BUILD(std::int64_t, float)
SPINDLE_INSTANTIATE_BUILD(std::int64_t, double)
SPINDLE_INSTANTIATE_BUILD(std::int64_t, Pattern)

}  // namespace spindle
