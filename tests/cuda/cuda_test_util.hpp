// SPDX-License-Identifier: Apache-2.0
#pragma once
// GPU test helpers: CSR graphs of the shapes that stress each mxv kernel (built directly in CSR
// so large shapes stay cheap), random vectors and masks, and the comparison of a CUDA result
// with the CPU backend's (exact for min / max / or / any / pair semirings, relative tolerance
// for sums of products). Every test skips without a CUDA device.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "spindle/cuda/residency.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

#define SPINDLE_REQUIRE_CUDA()                                                            \
  do {                                                                                    \
    if (!::spindle::cuda_available()) GTEST_SKIP() << "no CUDA device: GPU test skipped"; \
  } while (0)

namespace spindle::cuda_test {

/// Graph families, each aimed at one kernel's weak spot.
enum class Family {
  PowerLaw,   // mostly short rows, a few very long, ~15% empty (nnz_split / merge_path)
  DenseRow,   // one row of 5000 entries (longer than a block), the rest 0..5
  EmptyRuns,  // leading, middle and trailing runs of hundreds of empty rows (nnz_split windows)
  LongRows,   // every row 33..300 entries (longer than a warp)
  HugeRow,    // one row spanning many chunks / tiles (carry fix-up chains)
  Uniform,    // ~16 entries per row, even
  NoEntries,  // rows but no stored entry
};

inline const char* family_name(Family f) {
  switch (f) {
    case Family::PowerLaw:
      return "power_law";
    case Family::DenseRow:
      return "dense_row";
    case Family::EmptyRuns:
      return "empty_runs";
    case Family::LongRows:
      return "long_rows";
    case Family::HugeRow:
      return "huge_row";
    case Family::Uniform:
      return "uniform";
    case Family::NoEntries:
      return "no_entries";
  }
  return "?";
}

/// Row lengths of a family for n rows (n not a multiple of anything in the callers).
inline std::vector<std::int64_t> row_lengths(Family f, std::int64_t n, std::int64_t cols,
                                             std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> len(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t l = 0;
    switch (f) {
      case Family::PowerLaw: {
        if (u(rng) < 0.15) break;
        const double x = u(rng);
        l = 1 + static_cast<std::int64_t>(std::min(0.5 * cols, cols * 0.4 * std::pow(x, 8.0)));
        break;
      }
      case Family::DenseRow:
        l = static_cast<std::int64_t>(rng() % 6);
        break;
      case Family::EmptyRuns: {
        const bool run = i < 70 || (i >= n / 2 && i < n / 2 + 200) || i >= n - 500;
        l = run ? 0 : static_cast<std::int64_t>(1 + rng() % 3);
        break;
      }
      case Family::LongRows:
        l = 33 + static_cast<std::int64_t>(rng() % 268);
        break;
      case Family::HugeRow:
        l = static_cast<std::int64_t>(rng() % 4);
        break;
      case Family::Uniform:
        l = 12 + static_cast<std::int64_t>(rng() % 9);
        break;
      case Family::NoEntries:
        l = 0;
        break;
    }
    len[i] = std::min(l, cols);
  }
  if (f == Family::DenseRow && n > 3) len[n / 3] = std::min<std::int64_t>(5000, cols);
  if (f == Family::HugeRow && n > 7) len[n / 7] = cols;
  return len;
}

/// A random graph of the family: sorted distinct columns, values k/8 (k = 1..24) with ~5% explicit
/// zeros (exact in float, so float and double graphs hold the same numbers).
template <class I, class V>
Graph<I, V> make_graph(Family f, std::int64_t n, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::vector<std::int64_t> len = row_lengths(f, n, cols, rng);
  std::vector<I> rp(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) rp[i + 1] = rp[i] + static_cast<I>(len[i]);
  std::vector<I> ci(static_cast<std::size_t>(rp[n]));
  using SV = typename Graph<I, V>::stored_value_type;
  std::vector<SV> val;
  if constexpr (!is_pattern_v<V>) val.resize(ci.size());
  std::vector<std::uint8_t> used(static_cast<std::size_t>(cols), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t l = len[i];
    std::vector<I> c;
    if (l * 3 > cols) {  // dense-ish row: choose by rejection over all columns
      for (std::int64_t j = 0; j < cols && static_cast<std::int64_t>(c.size()) < l; ++j) {
        if (static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cols - j)) <
            l - static_cast<std::int64_t>(c.size())) {
          c.push_back(static_cast<I>(j));
        }
      }
    } else {
      while (static_cast<std::int64_t>(c.size()) < l) {
        const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cols));
        if (!used[j]) {
          used[j] = 1;
          c.push_back(static_cast<I>(j));
        }
      }
      for (I j : c) used[j] = 0;
      std::sort(c.begin(), c.end());
    }
    for (std::int64_t k = 0; k < l; ++k) {
      ci[rp[i] + k] = c[k];
      if constexpr (!is_pattern_v<V>) {
        val[rp[i] + k] = rng() % 20 == 0 ? V(0) : static_cast<V>(1 + rng() % 24) / V(8);
      }
    }
  }
  return Graph<I, V>(static_cast<I>(n), static_cast<I>(cols), std::move(rp), std::move(ci),
                     std::move(val));
}

/// Random vector of n entries (values k/4, k = 1..16), a fraction `absent` of them absent.
template <class T>
Vector<T> random_vector(std::int64_t n, double absent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(1 + rng() % 16) / T(4);
  if (absent > 0) {
    for (std::int64_t i = 0; i < n; ++i) {
      if (static_cast<double>(rng() % 1000) < absent * 1000) v.remove(i);
    }
  }
  return v;
}

/// Semirings whose results are exact (no rounding in add): compared bit for bit.
inline bool exact_semiring(SemiringKind k) {
  return k != SemiringKind::PlusTimes && k != SemiringKind::PlusMin;
}

/// Compares a CUDA result with the CPU backend's: presence exactly, values exactly or within a
/// relative tolerance (sums of positive terms in a different order). With `scale` (one entry per
/// row: sum_j |a_ij * u_j|, the size of the terms), the bound is tol * max(1, |w|, scale[i]):
/// a sum whose terms cancel (graphs with negative weights) carries rounding error of the order
/// of its terms, not of its result, whatever the summation order.
template <class T>
::testing::AssertionResult same_result(const Vector<T>& got, const Vector<T>& want, bool exact,
                                       const std::vector<double>* scale = nullptr) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << "size " << got.size() << " vs CPU " << want.size();
  }
  const double tol = std::is_same_v<T, float> ? 2e-5 : 1e-12;
  std::int64_t bad = 0;
  std::string first;
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const bool pg = got.present(i), pw = want.present(i);
    bool ok = pg == pw;
    if (ok && pw) {
      const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
      if (exact) {
        ok = g == w || (std::isinf(g) && std::isinf(w) && (g > 0) == (w > 0));
      } else {
        const double size = scale ? std::max(std::fabs(w), (*scale)[i]) : std::fabs(w);
        ok = std::fabs(g - w) <= tol * std::max(1.0, size);
      }
    }
    if (!ok && bad++ == 0) {
      first = "index " + std::to_string(i) + ": CUDA " +
              (pg ? std::to_string(static_cast<double>(got[i])) : std::string("absent")) +
              ", CPU " +
              (pw ? std::to_string(static_cast<double>(want[i])) : std::string("absent"));
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.size() << " entries differ; first at " << first;
}

/// Turns output poisoning on for a scope (see spindle::debug::poison_device_outputs).
struct PoisonOutputs {
  PoisonOutputs() { debug::poison_device_outputs(true); }
  ~PoisonOutputs() { debug::poison_device_outputs(false); }
};

}  // namespace spindle::cuda_test
