// SPDX-License-Identifier: Apache-2.0
#include "spindle/graph.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "spindle/debug/allocation.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/detail/mix.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/error.hpp"

namespace spindle {

namespace {

// GraphStats::col_imbalance_est: a count per column, or the pairs of draws that share one.
template <class I>
double estimate_column_imbalance(std::int64_t cols, std::int64_t nnz, const I* col_idx) {
  if (nnz <= 0 || cols <= 0) return 0.0;
  const double c = static_cast<double>(cols);
  const double z = static_cast<double>(nnz);
  if (nnz + cols <= kColumnImbalanceExactMax) {
    std::vector<std::int64_t> d(static_cast<std::size_t>(cols), 0);
    for (std::int64_t k = 0; k < nnz; ++k) ++d[static_cast<std::size_t>(col_idx[k])];
    double sq = 0.0;  // sum_j d_j^2
    for (const std::int64_t x : d) sq += static_cast<double>(x) * static_cast<double>(x);
    return std::sqrt(std::max(0.0, c * sq / (z * z) - 1.0));
  }
  // splitmix64 draws from a fixed seed (the same graph always gets the same sample), each from
  // its index: the random reads of the larger samples (a TLB and a cache miss each on a large
  // graph) are shared by the threads.
  const std::int64_t s = column_imbalance_draws(cols);
  std::vector<I> drawn(static_cast<std::size_t>(s));
  const std::uint64_t seed = 0x5350494e444c4553ULL ^ static_cast<std::uint64_t>(nnz);
#pragma omp parallel for schedule(static) if (s >= 8192)
  for (std::int64_t t = 0; t < s; ++t) {
    const std::uint64_t r =
        detail::mix64(seed + static_cast<std::uint64_t>(t + 1) * detail::kGolden);
    drawn[static_cast<std::size_t>(t)] = col_idx[r % static_cast<std::uint64_t>(nnz)];
  }
  std::sort(drawn.begin(), drawn.end());
  double pairs = 0.0;  // pairs of draws in the same column: sum_j m_j (m_j - 1) / 2
  for (std::size_t i = 0; i < drawn.size();) {
    std::size_t j = i + 1;
    while (j < drawn.size() && drawn[j] == drawn[i]) ++j;
    const double m = static_cast<double>(j - i);
    pairs += m * (m - 1.0) / 2.0;
    i = j;
  }
  // Draws with replacement: a pair shares a column with probability sum_j p_j^2.
  const double sd = static_cast<double>(s);
  return std::sqrt(std::max(0.0, c * pairs / (sd * (sd - 1.0) / 2.0) - 1.0));
}

}  // namespace

template <class I>
GraphStats compute_stats(std::int64_t rows, std::int64_t cols, const I* row_ptr, const I* col_idx) {
  GraphStats s;
  s.rows = rows;
  s.cols = cols;
  s.nnz = rows > 0 ? static_cast<std::int64_t>(row_ptr[rows]) : 0;
  s.rows_by_log2_length.assign(65, 0);
  if (rows == 0) {
    s.rows_by_log2_length.resize(1);
    s.col_imbalance_est = 0.0;
    return s;
  }
  s.avg_row = static_cast<double>(s.nnz) / static_cast<double>(rows);
  std::int64_t max_row = 0, min_row = std::numeric_limits<std::int64_t>::max(), empty = 0,
               loops = 0;
  const int nb = 65;
  std::vector<std::int64_t> hist(nb, 0);
  // The squared deviations are summed per block of kStatsBlock rows, in row order, and the block
  // sums in block order: stdv_row (which the CUDA planner compares with thresholds) is then the
  // same bits for any thread count. Per-thread partials changed it in its last bits.
  constexpr std::int64_t kStatsBlock = 4096;
  const std::int64_t sq_blocks = (rows + kStatsBlock - 1) / kStatsBlock;
  std::vector<double> sq_block(static_cast<std::size_t>(sq_blocks), 0.0);
#pragma omp parallel
  {
    std::vector<std::int64_t> local(nb, 0);
    std::int64_t lmax = 0, lmin = std::numeric_limits<std::int64_t>::max(), lempty = 0, lloops = 0;
#pragma omp for schedule(static) nowait
    for (std::int64_t blk = 0; blk < sq_blocks; ++blk) {
      double lsq = 0.0;
      const std::int64_t end = std::min(rows, (blk + 1) * kStatsBlock);
      for (std::int64_t i = blk * kStatsBlock; i < end; ++i) {
        const std::int64_t len = static_cast<std::int64_t>(row_ptr[i + 1] - row_ptr[i]);
        lmax = std::max(lmax, len);
        lmin = std::min(lmin, len);
        if (len == 0) ++lempty;
        const double d = static_cast<double>(len) - s.avg_row;
        lsq += d * d;
        int b = 0;
        for (std::int64_t l = len; l > 0; l >>= 1) ++b;
        ++local[b];
        // Rows are sorted: the diagonal is found by binary search.
        const I* first = col_idx + row_ptr[i];
        const I* last = col_idx + row_ptr[i + 1];
        const I* it = std::lower_bound(first, last, static_cast<I>(i));
        if (it != last && *it == static_cast<I>(i)) ++lloops;
      }
      sq_block[static_cast<std::size_t>(blk)] = lsq;
    }
#pragma omp critical(spindle_stats)
    {
      max_row = std::max(max_row, lmax);
      min_row = std::min(min_row, lmin);
      empty += lempty;
      loops += lloops;
      for (int b = 0; b < nb; ++b) hist[b] += local[b];
    }
  }
  s.max_row = max_row;
  s.min_row = min_row;
  s.empty_rows = empty;
  s.self_loops = loops;
  double sq = 0.0;
  for (const double b : sq_block) sq += b;
  s.stdv_row = std::sqrt(sq / static_cast<double>(rows));
  while (hist.size() > 1 && hist.back() == 0) hist.pop_back();
  s.rows_by_log2_length = std::move(hist);
  s.col_imbalance_est = estimate_column_imbalance(cols, s.nnz, col_idx);
  return s;
}

template GraphStats compute_stats<std::int32_t>(std::int64_t, std::int64_t, const std::int32_t*,
                                                const std::int32_t*);
template GraphStats compute_stats<std::int64_t>(std::int64_t, std::int64_t, const std::int64_t*,
                                                const std::int64_t*);

template <class I, class V>
Graph<I, V>::Graph() : data_(std::make_shared<Storage>()) {
  data_->row_ptr.assign(1, I(0));
}

template <class I, class V>
Graph<I, V>::Graph(Unchecked, I rows, I cols, std::shared_ptr<Storage> data)
    : rows_(rows), cols_(cols), data_(std::move(data)) {}

template <class I, class V>
Graph<I, V>::Graph(I rows, I cols, std::vector<I> row_ptr, std::vector<I> col_idx,
                   std::vector<stored_value_type> values)
    : rows_(rows), cols_(cols), data_(std::make_shared<Storage>()) {
  if (rows < 0 || cols < 0) {
    throw InvalidArgument("Graph: negative shape " + std::to_string(rows) + " x " +
                          std::to_string(cols));
  }
  if (row_ptr.size() != static_cast<std::size_t>(rows) + 1) {
    throw InvalidArgument("Graph: row_ptr has " + std::to_string(row_ptr.size()) +
                          " entries, expected rows + 1 = " + std::to_string(rows + 1));
  }
  if (row_ptr[0] != 0 || row_ptr[rows] != static_cast<I>(col_idx.size())) {
    throw InvalidArgument("Graph: row_ptr must start at 0 and end at nnz = " +
                          std::to_string(col_idx.size()));
  }
  if constexpr (is_pattern) {
    if (!values.empty()) throw InvalidArgument("Graph: a pattern graph stores no values");
  } else {
    if (values.size() != col_idx.size()) {
      throw InvalidArgument("Graph: " + std::to_string(values.size()) + " values for " +
                            std::to_string(col_idx.size()) + " stored entries");
    }
  }
  // Two flat passes instead of a walk row by row (a loaded graph's arrays are checked at memory
  // speed: R-MAT 22's 65 M columns in about half the walk's time on 2 cores):
  //  1. offsets never decrease (with row_ptr[0] = 0 and row_ptr[rows] = nnz checked above, every
  //     row's range then lies inside col_idx, so nothing below can leave it);
  //  2. per block of columns: every column is in [0, cols); the descents (col[k] <= col[k-1])
  //     are counted, and so are those at the starts of the block's non-empty rows (found by a
  //     binary search of the offsets). The columns increase strictly within every row exactly
  //     when all descents are at row starts (each non-empty row has its own start).
  // Only a graph that fails walks its rows to name the first bad one.
  using U = std::make_unsigned_t<I>;
  const auto n = static_cast<std::int64_t>(rows);
  const auto nz = static_cast<std::int64_t>(col_idx.size());
  const I* rp = row_ptr.data();
  const I* ci = col_idx.data();
  std::int64_t offsets_down = 0;
#pragma omp parallel for schedule(static) reduction(+ : offsets_down)
  for (std::int64_t i = 0; i < n; ++i) offsets_down += rp[i + 1] < rp[i];
  bool ok = offsets_down == 0;
  if (ok && nz > 0) {
    // 64 KB of int32 columns: the block's row starts are read while it is in cache, and its
    // counts fit 32 bits (so the loop vectorizes without widening).
    constexpr std::int64_t kBlock = std::int64_t{1} << 14;
    const std::int64_t blocks = (nz + kBlock - 1) / kBlock;
    std::int64_t out_of_range = static_cast<U>(ci[0]) >= static_cast<U>(cols);
    std::int64_t stray_descents = 0;
#pragma omp parallel for schedule(static) reduction(+ : out_of_range, stray_descents)
    for (std::int64_t b = 0; b < blocks; ++b) {
      const std::int64_t k0 = std::max<std::int64_t>(1, b * kBlock);
      const std::int64_t k1 = std::min(nz, (b + 1) * kBlock);
      std::int32_t outside = 0, descents = 0;
      for (std::int64_t k = k0; k < k1; ++k) {
        outside += static_cast<U>(ci[k]) >= static_cast<U>(cols);
        descents += ci[k] <= ci[k - 1];
      }
      std::int64_t i = std::lower_bound(rp, rp + n + 1, static_cast<I>(k0)) - rp;
      for (; i < n && rp[i] < k1; ++i) {
        descents -= rp[i] < rp[i + 1] && ci[rp[i]] <= ci[rp[i] - 1];
      }
      out_of_range += outside;
      stray_descents += descents;
    }
    ok = out_of_range == 0 && stray_descents == 0;
  }
  if (!ok) {
    // Offsets first: a row before the first decrease may still reach past nnz.
    std::int64_t bad_row = std::numeric_limits<std::int64_t>::max();
    for (std::int64_t i = 0; i < n && offsets_down > 0; ++i) {
      if (rp[i + 1] < rp[i]) {
        bad_row = i;
        break;
      }
    }
    for (std::int64_t i = 0; i < n && bad_row == std::numeric_limits<std::int64_t>::max(); ++i) {
      for (I k = rp[i]; k < rp[i + 1]; ++k) {
        const I j = ci[k];
        if (j < 0 || j >= cols || (k > rp[i] && ci[k - 1] >= j)) {
          bad_row = i;
          break;
        }
      }
    }
    bool bad_index = false;
    if (bad_row != std::numeric_limits<std::int64_t>::max() && rp[bad_row + 1] >= rp[bad_row]) {
      for (I k = rp[bad_row]; k < rp[bad_row + 1]; ++k) {
        if (ci[k] < 0 || ci[k] >= cols) bad_index = true;
      }
    }
    const std::string where = "Graph: row " + std::to_string(bad_row);
    if (bad_index)
      throw IndexOutOfBounds(where + " has a column index outside [0, " + std::to_string(cols) +
                             ")");
    throw InvalidArgument(where + ": offsets decrease or columns are not strictly increasing");
  }
  data_->row_ptr = std::move(row_ptr);
  data_->col_idx = std::move(col_idx);
  data_->values = std::move(values);
}

template <class I, class V>
const GraphStats& Graph<I, V>::stats() const {
  std::lock_guard<std::recursive_mutex> lock(data_->mutex);
  if (!data_->stats) {
    data_->stats = std::make_unique<GraphStats>(
        compute_stats<I>(rows_, cols_, data_->row_ptr.data(), data_->col_idx.data()));
  }
  return *data_->stats;
}

template <class I, class V>
bool Graph<I, V>::has_transpose() const {
  std::lock_guard<std::recursive_mutex> lock(data_->mutex);
  return data_->transpose != nullptr;
}

template <class I, class V>
const Graph<I, V>& Graph<I, V>::transpose() const {
  std::lock_guard<std::recursive_mutex> lock(data_->mutex);
  if (data_->transpose) return *data_->transpose;
  if (detail::TransposeBuilder* builder = detail::current_transpose_builder()) {
    detail::TransposeParts<I, V> parts;
    if (builder->build(*this, parts)) {
      if (parts.row_ptr.size() != static_cast<std::size_t>(cols_) + 1 ||
          parts.col_idx.size() != data_->col_idx.size() ||
          parts.values.size() != data_->values.size()) {
        throw Error("transpose: a backend's build returned arrays of the wrong sizes");
      }
      auto t = std::make_shared<Storage>();
      t->row_ptr = std::move(parts.row_ptr);
      t->col_idx = std::move(parts.col_idx);
      t->values = std::move(parts.values);
      t->extensions = std::move(parts.extensions);
      data_->transpose.reset(new Graph(Unchecked{}, cols_, rows_, std::move(t)));
      return *data_->transpose;
    }
  }
  const std::int64_t n = rows_, m = cols_;
  const std::int64_t nnz = static_cast<std::int64_t>(data_->col_idx.size());
  // Built aside and cached only when complete: a failed allocation leaves no partial transpose.
  auto t = std::make_shared<Storage>();
  // Large arrays: huge pages, faulted in on all threads (detail/host_pages.hpp). A plain
  // zero-filled vector spent 130 of 230 ms here on R-MAT 22 (16 threads), faulting its pages on
  // one thread.
  t->row_ptr = detail::large_workspace<I>(static_cast<std::size_t>(m) + 1, "transpose: row_ptr");
  t->col_idx = detail::large_workspace<I>(static_cast<std::size_t>(nnz), "transpose: col_idx");
  if constexpr (!is_pattern) {
    t->values = detail::large_workspace<stored_value_type>(static_cast<std::size_t>(nnz),
                                                           "transpose: values");
  }
  const I* rp = data_->row_ptr.data();
  const I* ci = data_->col_idx.data();
  // Two streaming passes instead of one scatter to random places (a counting sort by column that
  // writes each entry straight to its transposed slot misses the cache on almost every entry; on
  // R-MAT scale 22 with 2 threads that scatter took 460 of the 800 ms):
  //   1. each thread takes a range of rows and moves its entries, in row order, into buckets of
  //      kBucketColumns consecutive columns (a staging copy: the row, the column's low bits and
  //      the value); the buckets' regions follow (bucket, thread) order;
  //   2. each bucket (about nnz / buckets entries, in cache) is counting-sorted by column into its
  //      part of the transpose, stably: every transposed row keeps increasing row order, the same
  //      result as a sequential transpose whatever the thread count.
  // The staging takes nnz x (2 + sizeof(I) + sizeof(value)) bytes; the per-thread state is small
  // (one offset per bucket, one count per column of a bucket), where a per-thread column count
  // array took threads x cols x sizeof(I).
  constexpr int kBucketBits = 14;
  constexpr std::int64_t kBucketColumns = std::int64_t{1} << kBucketBits;
  const int nthreads =
      std::max(1, std::min<int>(omp_get_max_threads(),
                                static_cast<int>(std::max<std::int64_t>(1, nnz / 65536))));
  std::vector<std::int64_t> bounds(nthreads + 1, 0);
  for (int b = 0; b <= nthreads; ++b) {
    const std::int64_t target = nnz * b / nthreads;
    bounds[b] = std::lower_bound(rp, rp + n + 1, static_cast<I>(target)) - rp;
  }
  bounds[nthreads] = n;
  const std::int64_t buckets = (m + kBucketColumns - 1) / kBucketColumns;
  // Allocated here because an exception must not leave the parallel regions below. The staging
  // is left uninitialised (every slot is written before it is read).
  auto offsets = detail::workspace<std::int64_t>(
      static_cast<std::size_t>(nthreads) * static_cast<std::size_t>(buckets),
      "transpose: bucket offsets");
  auto bucket_start =
      detail::workspace<std::int64_t>(static_cast<std::size_t>(buckets) + 1, "transpose: buckets");
  const auto staged = static_cast<std::size_t>(nnz);
  auto low = detail::large_uninitialised<std::uint16_t>(staged, "transpose: staging");
  auto row = detail::large_uninitialised<I>(staged, "transpose: staging");
  std::unique_ptr<stored_value_type[]> val;
  if constexpr (!is_pattern) {
    val = detail::large_uninitialised<stored_value_type>(staged, "transpose: staging");
  }
  std::vector<std::vector<I>> column_counts(nthreads);
  for (auto& c : column_counts) {
    detail::checked_resize(c, static_cast<std::size_t>(std::min(kBucketColumns, m)),
                           "transpose: column counts");
  }
  static_assert(kBucketBits <= 16, "a column's low bits are staged in 16 bits");
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
  for (int b = 0; b < nthreads; ++b) {
    std::int64_t* c = offsets.data() + static_cast<std::size_t>(b) * buckets;
    for (std::int64_t k = rp[bounds[b]]; k < rp[bounds[b + 1]]; ++k) ++c[ci[k] >> kBucketBits];
  }
  // Exclusive scan in (bucket, thread) order: buckets x threads steps (one per thread for every
  // 2^14 columns), sequential.
  std::int64_t running = 0;
  for (std::int64_t bk = 0; bk < buckets; ++bk) {
    bucket_start[bk] = running;
    for (int b = 0; b < nthreads; ++b) {
      std::int64_t& o = offsets[static_cast<std::size_t>(b) * buckets + bk];
      const std::int64_t count = o;
      o = running;
      running += count;
    }
  }
  bucket_start[buckets] = running;
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
  for (int b = 0; b < nthreads; ++b) {
    std::int64_t* pos = offsets.data() + static_cast<std::size_t>(b) * buckets;
    for (std::int64_t i = bounds[b]; i < bounds[b + 1]; ++i) {
      for (I k = rp[i]; k < rp[i + 1]; ++k) {
        const I j = ci[k];
        const std::int64_t dst = pos[j >> kBucketBits]++;
        low[dst] = static_cast<std::uint16_t>(j & (kBucketColumns - 1));
        row[dst] = static_cast<I>(i);
        if constexpr (!is_pattern) val[dst] = data_->values[k];
      }
    }
  }
  // Counts and positions fit I: every position is below nnz, and row_ptr (of type I) holds nnz.
#pragma omp parallel num_threads(nthreads)
  {
    std::vector<I>& cnt = column_counts[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t bk = 0; bk < buckets; ++bk) {
      const std::int64_t c0 = bk * kBucketColumns;
      const std::int64_t width = std::min(kBucketColumns, m - c0);
      std::fill(cnt.begin(), cnt.begin() + width, I(0));
      const std::int64_t bs = bucket_start[bk], be = bucket_start[bk + 1];
      for (std::int64_t e = bs; e < be; ++e) ++cnt[low[e]];
      std::int64_t at = bs;
      for (std::int64_t c = 0; c < width; ++c) {
        t->row_ptr[c0 + c] = static_cast<I>(at);
        const I count = cnt[c];
        cnt[c] = static_cast<I>(at);
        at += count;
      }
      for (std::int64_t e = bs; e < be; ++e) {
        const std::int64_t dst = static_cast<std::int64_t>(cnt[low[e]]++);
        t->col_idx[dst] = row[e];
        if constexpr (!is_pattern) t->values[dst] = val[e];
      }
    }
  }
  t->row_ptr[m] = static_cast<I>(running);
  data_->transpose.reset(new Graph(Unchecked{}, cols_, rows_, std::move(t)));
  return *data_->transpose;
}

template <class I, class V>
const std::vector<I>& Graph<I, V>::out_degrees() const {
  std::lock_guard<std::recursive_mutex> lock(data_->mutex);
  if (!data_->out_degrees) {
    auto d = std::make_unique<std::vector<I>>(
        detail::large_workspace<I>(static_cast<std::size_t>(rows_), "out_degrees"));
    const I* rp = data_->row_ptr.data();
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(rows_); ++i) (*d)[i] = rp[i + 1] - rp[i];
    data_->out_degrees = std::move(d);
  }
  return *data_->out_degrees;
}

template <class I, class V>
const std::vector<I>& Graph<I, V>::in_degrees() const {
  // The transpose's out-degrees are the in-degrees; counting directly avoids building it.
  std::lock_guard<std::recursive_mutex> lock(data_->mutex);
  if (!data_->in_degrees) {
    auto d = std::make_unique<std::vector<I>>(
        detail::large_workspace<I>(static_cast<std::size_t>(cols_), "in_degrees"));
    // Each thread counts a range of the entries into counts of its own, then the threads sum
    // them per column: integers, so any thread count gives the same result. (A single-threaded
    // count took 0.24 s on R-MAT 22; atomic adds on one array would serialise on a hub column.)
    // The private counts take threads x cols entries, never more than the column array itself:
    // fewer threads where columns are many per entry, one (the plain loop) below two.
    I* count = d->data();
    const I* ci = data_->col_idx.data();
    const auto nnz = static_cast<std::int64_t>(data_->col_idx.size());
    const std::int64_t m = std::max<std::int64_t>(cols_, 1);
    const int nthreads = static_cast<int>(std::min<std::int64_t>(omp_get_max_threads(), nnz / m));
    if (nthreads < 2 || nnz < (std::int64_t{1} << 20)) {
      for (std::int64_t k = 0; k < nnz; ++k) ++count[ci[k]];
    } else {
      auto part = detail::large_workspace<I>(
          static_cast<std::size_t>(nthreads) * static_cast<std::size_t>(m),
          "in_degrees: per-thread counts");
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
      for (int t = 0; t < nthreads; ++t) {
        I* c = part.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(m);
        for (std::int64_t k = nnz * t / nthreads; k < nnz * (t + 1) / nthreads; ++k) ++c[ci[k]];
      }
#pragma omp parallel for schedule(static)
      for (std::int64_t j = 0; j < static_cast<std::int64_t>(cols_); ++j) {
        I sum = 0;
        for (int t = 0; t < nthreads; ++t) {
          sum += part[static_cast<std::size_t>(t) * static_cast<std::size_t>(m) +
                      static_cast<std::size_t>(j)];
        }
        count[j] = sum;
      }
    }
    data_->in_degrees = std::move(d);
  }
  return *data_->in_degrees;
}

template <class I, class V>
template <class W>
Graph<I, W> Graph<I, V>::with_values() const {
  using G = Graph<I, W>;
  auto s = std::make_shared<typename G::Storage>();
  s->row_ptr = detail::large_copy(data_->row_ptr, "with_values: row_ptr");
  s->col_idx = detail::large_copy(data_->col_idx, "with_values: col_idx");
  if constexpr (!is_pattern_v<W>) {
    const std::size_t nnz = data_->col_idx.size();
    s->values = detail::large_workspace<typename G::stored_value_type>(nnz, "with_values: values");
    const V* vp = value_ptr();
#pragma omp parallel for schedule(static)
    for (std::int64_t k = 0; k < static_cast<std::int64_t>(nnz); ++k) {
      s->values[k] = entry_value<W, V>(vp, k);
    }
  }
  return G(typename G::Unchecked{}, rows_, cols_, std::move(s));
}

template <class I, class V>
std::size_t Graph<I, V>::bytes() const noexcept {
  return data_->row_ptr.size() * sizeof(I) + data_->col_idx.size() * sizeof(I) +
         data_->values.size() * sizeof(stored_value_type);
}

namespace detail {
namespace {
thread_local TransposeBuilder* t_transpose_builder = nullptr;
}  // namespace

TransposeBuilder* current_transpose_builder() noexcept { return t_transpose_builder; }

ScopedTransposeBuilder::ScopedTransposeBuilder(TransposeBuilder* builder) noexcept
    : previous_(t_transpose_builder) {
  t_transpose_builder = builder;
}

ScopedTransposeBuilder::~ScopedTransposeBuilder() { t_transpose_builder = previous_; }
}  // namespace detail

#define SPINDLE_INSTANTIATE_GRAPH(I, V)                               \
  template class Graph<I, V>;                                         \
  template Graph<I, float> Graph<I, V>::with_values<float>() const;   \
  template Graph<I, double> Graph<I, V>::with_values<double>() const; \
  template Graph<I, Pattern> Graph<I, V>::with_values<Pattern>() const;

SPINDLE_INSTANTIATE_GRAPH(std::int32_t, float)
SPINDLE_INSTANTIATE_GRAPH(std::int32_t, double)
SPINDLE_INSTANTIATE_GRAPH(std::int32_t, Pattern)
SPINDLE_INSTANTIATE_GRAPH(std::int64_t, float)
SPINDLE_INSTANTIATE_GRAPH(std::int64_t, double)
SPINDLE_INSTANTIATE_GRAPH(std::int64_t, Pattern)

}  // namespace spindle
