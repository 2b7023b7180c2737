// SPDX-License-Identifier: Apache-2.0
// Host construction of the ASpT reordering (aspt_prepare.hpp). Two passes over the panels (count,
// then fill at prefix-summed offsets), each panel independent, so OpenMP changes nothing in the
// result.
#include "ops/cuda/mxm/aspt_prepare.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "spindle/debug/allocation.hpp"

namespace spindle::detail::cuda {
namespace {

/// The sorted heavy columns of rows [r0, r1) that are not long (their columns gathered, sorted,
/// and runs of length >= kAsptHeavyMin kept).
template <class I>
void panel_heavy(const I* row_ptr, const I* col_idx, std::int64_t r0, std::int64_t r1,
                 std::int64_t long_row, std::vector<I>& scratch, std::vector<I>& heavy) {
  scratch.clear();
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t b = row_ptr[r];
    const std::int64_t e = row_ptr[r + 1];
    if (e - b > long_row) continue;
    scratch.insert(scratch.end(), col_idx + b, col_idx + e);
  }
  std::sort(scratch.begin(), scratch.end());
  heavy.clear();
  for (std::size_t i = 0; i < scratch.size();) {
    std::size_t j = i;
    while (j < scratch.size() && scratch[j] == scratch[i]) ++j;
    if (j - i >= static_cast<std::size_t>(kAsptHeavyMin)) heavy.push_back(scratch[i]);
    i = j;
  }
}

template <class I>
void exclusive_scan(std::vector<I>& v) {  // v[i] = count of item i; becomes its offset, + total
  I run = 0;
  for (auto& x : v) {
    const I c = x;
    x = run;
    run += c;
  }
  v.push_back(run);
}

}  // namespace

template <class I, class T>
AsptHost<I, T> build_aspt(std::int64_t rows, const I* row_ptr, const I* col_idx, const T* vals,
                          std::int64_t panel_rows, std::int64_t long_row) {
  AsptHost<I, T> h;
  h.rows = rows;
  h.panel_rows = panel_rows;
  h.long_row = long_row;
  h.panels = (rows + panel_rows - 1) / panel_rows;
  const std::int64_t P = h.panels;
  const bool with_vals = vals != nullptr;

  // Pass 1: heavy lists per panel, and per row the number of heavy / light entries.
  std::vector<std::vector<I>> heavy(static_cast<std::size_t>(P));
  h.h_ptr = workspace<I>(static_cast<std::size_t>(rows), "aspt reordering");
  h.l_ptr = workspace<I>(static_cast<std::size_t>(rows), "aspt reordering");
  std::vector<I> long_len;
#pragma omp parallel
  {
    std::vector<I> scratch;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t p = 0; p < P; ++p) {
      const std::int64_t r0 = p * panel_rows;
      const std::int64_t r1 = std::min(rows, r0 + panel_rows);
      auto& hv = heavy[static_cast<std::size_t>(p)];
      panel_heavy(row_ptr, col_idx, r0, r1, long_row, scratch, hv);
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t b = row_ptr[r];
        const std::int64_t e = row_ptr[r + 1];
        if (e - b > long_row) continue;  // counted below as a long row
        I nh = 0;
        for (std::int64_t k = b; k < e; ++k) {
          if (std::binary_search(hv.begin(), hv.end(), col_idx[k])) ++nh;
        }
        h.h_ptr[static_cast<std::size_t>(r)] = nh;
        h.l_ptr[static_cast<std::size_t>(r)] = static_cast<I>(e - b) - nh;
      }
    }
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t len = row_ptr[r + 1] - row_ptr[r];
    if (len > long_row) {
      h.long_rows.push_back(static_cast<I>(r));
      long_len.push_back(static_cast<I>(len));
    }
  }
  h.panel_hptr.resize(static_cast<std::size_t>(P));
  for (std::int64_t p = 0; p < P; ++p) {
    h.panel_hptr[static_cast<std::size_t>(p)] =
        static_cast<I>(heavy[static_cast<std::size_t>(p)].size());
  }
  exclusive_scan(h.panel_hptr);
  exclusive_scan(h.h_ptr);
  exclusive_scan(h.l_ptr);
  h.long_ptr = long_len;
  exclusive_scan(h.long_ptr);

  const auto nh = static_cast<std::size_t>(h.h_ptr.back());
  const auto nl = static_cast<std::size_t>(h.l_ptr.back());
  const auto nlong = static_cast<std::size_t>(h.long_ptr.back());
  h.heavy_cols = workspace<I>(static_cast<std::size_t>(h.panel_hptr.back()), "aspt reordering");
  h.h_slot = workspace<std::int32_t>(nh, "aspt reordering");
  h.l_col = workspace<I>(nl, "aspt reordering");
  h.long_col = workspace<I>(nlong, "aspt reordering");
  if (with_vals) {
    h.h_val = workspace<T>(nh, "aspt reordering");
    h.l_val = workspace<T>(nl, "aspt reordering");
    h.long_val = workspace<T>(nlong, "aspt reordering");
  }

  // Pass 2: fill. Each row keeps its entries' column order within both parts.
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t p = 0; p < P; ++p) {
    const auto& hv = heavy[static_cast<std::size_t>(p)];
    std::copy(hv.begin(), hv.end(),
              h.heavy_cols.begin() +
                  static_cast<std::ptrdiff_t>(h.panel_hptr[static_cast<std::size_t>(p)]));
    const std::int64_t r0 = p * panel_rows;
    const std::int64_t r1 = std::min(rows, r0 + panel_rows);
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t b = row_ptr[r];
      const std::int64_t e = row_ptr[r + 1];
      if (e - b > long_row) continue;
      std::int64_t hp = h.h_ptr[static_cast<std::size_t>(r)];
      std::int64_t lp = h.l_ptr[static_cast<std::size_t>(r)];
      for (std::int64_t k = b; k < e; ++k) {
        const auto it = std::lower_bound(hv.begin(), hv.end(), col_idx[k]);
        if (it != hv.end() && *it == col_idx[k]) {
          h.h_slot[static_cast<std::size_t>(hp)] = static_cast<std::int32_t>(it - hv.begin());
          if (with_vals) h.h_val[static_cast<std::size_t>(hp)] = vals[k];
          ++hp;
        } else {
          h.l_col[static_cast<std::size_t>(lp)] = col_idx[k];
          if (with_vals) h.l_val[static_cast<std::size_t>(lp)] = vals[k];
          ++lp;
        }
      }
    }
  }
  for (std::size_t q = 0; q < h.long_rows.size(); ++q) {
    const std::int64_t r = h.long_rows[q];
    const std::int64_t b = row_ptr[r];
    const std::int64_t e = row_ptr[r + 1];
    const std::int64_t o = h.long_ptr[q];
    std::copy(col_idx + b, col_idx + e, h.long_col.begin() + o);
    if (with_vals) std::copy(vals + b, vals + e, h.long_val.begin() + o);
  }
  return h;
}

#define SPINDLE_ASPT_INST_(I, T)                                                       \
  template AsptHost<I, T> build_aspt<I, T>(std::int64_t, const I*, const I*, const T*, \
                                           std::int64_t, std::int64_t);
SPINDLE_ASPT_INST_(std::int32_t, float)
SPINDLE_ASPT_INST_(std::int32_t, double)
SPINDLE_ASPT_INST_(std::int64_t, float)
SPINDLE_ASPT_INST_(std::int64_t, double)
#undef SPINDLE_ASPT_INST_

}  // namespace spindle::detail::cuda
