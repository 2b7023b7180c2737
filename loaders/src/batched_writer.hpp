// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: parallel text formatting with in-order output. Blocks of work are formatted into
// strings by several threads, a batch at a time (bounded memory), and written in block order,
// so the file is byte-identical for any thread count.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "spindle/loaders/atomic_file.hpp"

namespace spindle {
namespace detail {

/// block_starts: k+1 increasing unit offsets; fmt(begin_unit, end_unit, std::string& out).
template <class Fmt>
void write_blocks(AtomicFileWriter& file, const std::vector<std::int64_t>& block_starts,
                  int threads, Fmt&& fmt) {
  const std::int64_t k = static_cast<std::int64_t>(block_starts.size()) - 1;
  const std::int64_t batch = std::max<std::int64_t>(1, static_cast<std::int64_t>(threads) * 2);
  std::vector<std::string> text(static_cast<std::size_t>(batch));
  for (std::int64_t b0 = 0; b0 < k; b0 += batch) {
    const std::int64_t b1 = std::min(k, b0 + batch);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(b1 - b0));
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (b1 - b0 > 1)
    for (std::int64_t b = b0; b < b1; ++b) {
      std::string& out = text[static_cast<std::size_t>(b - b0)];
      out.clear();
      try {
        fmt(block_starts[b], block_starts[b + 1], out);
      } catch (...) {
        errors[static_cast<std::size_t>(b - b0)] = std::current_exception();
      }
    }
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);  // exceptions must not cross the OpenMP region
    }
    for (std::int64_t b = b0; b < b1; ++b) file.write(text[static_cast<std::size_t>(b - b0)]);
  }
}

/// Splits [0, n) into blocks of about `per_block` units of cost; cost_prefix(u) is the
/// cumulative cost before unit u (non-decreasing, cost_prefix(0) = 0).
template <class Prefix>
std::vector<std::int64_t> balanced_blocks(std::int64_t n, std::int64_t per_block,
                                          Prefix&& cost_prefix) {
  std::vector<std::int64_t> starts{0};
  if (n == 0) {
    starts.push_back(0);
    return starts;
  }
  const std::int64_t total = cost_prefix(n);
  std::int64_t u = 0;
  while (u < n) {
    const std::int64_t target = cost_prefix(u) + std::max<std::int64_t>(1, per_block);
    // first unit whose prefix reaches the target (binary search), at least one unit ahead
    std::int64_t lo = u + 1, hi = n;
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (cost_prefix(mid) >= target)
        hi = mid;
      else
        lo = mid + 1;
    }
    u = target >= total ? n : lo;
    starts.push_back(u);
  }
  return starts;
}

}  // namespace detail
}  // namespace spindle
