// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared pieces of the GPU SpMM / SDDMM tests: seeded CSR shapes that stress the kernels (empty
// rows at both ends, a row of 5000 entries, power-law rows, rows spanning many nnz chunks),
// random dense operands, and naive oracles (plain row loops over the CSR, written here from the
// definitions, sharing nothing with the kernels).
//
// Values are exact in float: graph values k/8 (k in 1..24), dense values (k - 6)/4 (k in 0..12).
// Every product is a multiple of 1/32 below 9, so sums of up to 5000 terms stay below 2^19 and
// are exact in float in any order: the oracles compare with ==, also for plus_times.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spindle/dense.hpp"
#include "spindle/executor.hpp"
#include "spindle/graph.hpp"
#include "spindle/operators.hpp"
#include "spindle/semiring.hpp"

namespace spindle::test {

#define SPINDLE_SKIP_WITHOUT_GPU()                            \
  if (!::spindle::cuda_available())                           \
  GTEST_SKIP() << "no CUDA device visible (or built without " \
                  "CUDA)"

/// A CSR in plain vectors (the oracle's view).
struct Csr {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int64_t> rp{0};
  std::vector<std::int64_t> ci;
  std::vector<double> val;
  std::int64_t nnz() const { return static_cast<std::int64_t>(ci.size()); }
};

enum class Shape {
  PowerLaw,      ///< empty rows (incl. the first and last 5), power-law lengths, one row of 2000
  DenseRow5000,  ///< a row of 5000 entries among rows of 0..3
  MostlyEmpty,   ///< 95% empty rows
  Uniform,       ///< every row 8..16 entries
  LongRows,      ///< rows of 300..1000 entries: each spans several nnz chunks
  Tiny,          ///< 1 x 1 with its one entry
  NoEntries,     ///< 37 x 29 without a single entry: every output row is the identity
  HugeRow,       ///< > 2^17 entries (a "large" graph for row_block) with a row of 20000
};

/// Every built-in semiring with a seed for its test case: X(TestName, semiring template, seed).
/// One list for the SpMM and SDDMM kernel tests (a test per semiring, so that shards spread them).
#define SPINDLE_TEST_BUILTIN_SEMIRINGS(X) \
  X(PlusTimes, plus_times, 1)             \
  X(MinPlus, min_plus, 2)                 \
  X(MaxPlus, max_plus, 3)                 \
  X(MaxTimes, max_times, 4)               \
  X(MinTimes, min_times, 5)               \
  X(PlusMin, plus_min, 6)                 \
  X(LorLand, lor_land, 7)                 \
  X(AnyPair, any_pair, 8)                 \
  X(PlusPair, plus_pair, 9)               \
  X(MaxMin, max_min, 10)

inline const char* shape_name(Shape s) {
  switch (s) {
    case Shape::PowerLaw:
      return "power_law";
    case Shape::DenseRow5000:
      return "dense_row_5000";
    case Shape::MostlyEmpty:
      return "mostly_empty";
    case Shape::Uniform:
      return "uniform";
    case Shape::LongRows:
      return "long_rows";
    case Shape::Tiny:
      return "tiny";
    case Shape::NoEntries:
      return "no_entries";
    case Shape::HugeRow:
      return "huge_row";
  }
  return "?";
}

/// Sorted distinct columns of one row with `len` entries out of `cols`.
inline void add_row(Csr& m, std::int64_t len, std::mt19937_64& rng) {
  len = std::min(len, m.cols);
  std::vector<std::int64_t> cs;
  if (len * 3 > m.cols) {  // dense-ish: choose by skipping
    std::vector<std::int64_t> all(static_cast<std::size_t>(m.cols));
    for (std::int64_t j = 0; j < m.cols; ++j) all[static_cast<std::size_t>(j)] = j;
    std::shuffle(all.begin(), all.end(), rng);
    cs.assign(all.begin(), all.begin() + len);
  } else {
    while (static_cast<std::int64_t>(cs.size()) < len) {
      const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(m.cols));
      if (std::find(cs.begin(), cs.end(), j) == cs.end()) cs.push_back(j);
    }
  }
  std::sort(cs.begin(), cs.end());
  for (auto j : cs) {
    m.ci.push_back(j);
    m.val.push_back(static_cast<double>(1 + rng() % 24) / 8.0);
  }
  m.rp.push_back(static_cast<std::int64_t>(m.ci.size()));
}

inline Csr make_shape(Shape s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  Csr m;
  switch (s) {
    case Shape::PowerLaw: {
      m.rows = 3001;
      m.cols = 2600;
      for (std::int64_t i = 0; i < m.rows; ++i) {
        std::int64_t len = 0;
        if (i == 1234) {
          len = 2000;
        } else if (i >= 5 && i < m.rows - 5 && unif(rng) >= 0.15) {
          const double x = unif(rng);
          len = 1 + static_cast<std::int64_t>(400.0 * x * x * x * x * x * x);
        }
        add_row(m, len, rng);
      }
      break;
    }
    case Shape::DenseRow5000: {
      m.rows = 701;
      m.cols = 5003;
      for (std::int64_t i = 0; i < m.rows; ++i) add_row(m, i == 100 ? 5000 : rng() % 4, rng);
      break;
    }
    case Shape::MostlyEmpty: {
      m.rows = 2000;
      m.cols = 1500;
      for (std::int64_t i = 0; i < m.rows; ++i) {
        add_row(m, unif(rng) < 0.05 ? 1 + rng() % 40 : 0, rng);
      }
      break;
    }
    case Shape::Uniform: {
      m.rows = 4000;
      m.cols = 3500;
      for (std::int64_t i = 0; i < m.rows; ++i) add_row(m, 8 + rng() % 9, rng);
      break;
    }
    case Shape::LongRows: {
      m.rows = 97;
      m.cols = 1200;
      for (std::int64_t i = 0; i < m.rows; ++i) add_row(m, 300 + rng() % 701, rng);
      break;
    }
    case Shape::Tiny: {
      m.rows = 1;
      m.cols = 1;
      add_row(m, 1, rng);
      break;
    }
    case Shape::NoEntries: {
      m.rows = 37;
      m.cols = 29;
      for (std::int64_t i = 0; i < m.rows; ++i) add_row(m, 0, rng);
      break;
    }
    case Shape::HugeRow: {
      m.rows = 9000;
      m.cols = 30000;
      for (std::int64_t i = 0; i < m.rows; ++i) add_row(m, i == 4321 ? 20000 : 14 + rng() % 5, rng);
      break;
    }
  }
  return m;
}

template <class I, class V>
Graph<I, V> to_graph(const Csr& m) {
  std::vector<I> rp(m.rp.begin(), m.rp.end());
  std::vector<I> ci(m.ci.begin(), m.ci.end());
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  if constexpr (!is_pattern_v<V>) vals.assign(m.val.begin(), m.val.end());
  return Graph<I, V>(static_cast<I>(m.rows), static_cast<I>(m.cols), std::move(rp), std::move(ci),
                     std::move(vals));
}

/// rows x cols with values (k - 6)/4, k in 0..12 (negatives exercise ReLU and min/max).
template <class T>
DenseMatrix<T> random_dense(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  DenseMatrix<T> d(rows, cols);
  for (std::int64_t e = 0; e < d.size(); ++e) {
    d.data()[e] = static_cast<T>((static_cast<double>(rng() % 13) - 6.0) / 4.0);
  }
  return d;
}

// ---- semiring definitions, written out per kind (the oracle) ----------------------------------

template <class T>
T ref_identity(SemiringKind k) {
  const T inf = std::numeric_limits<T>::infinity();
  switch (k) {
    case SemiringKind::MinPlus:
    case SemiringKind::MinTimes:
      return inf;
    case SemiringKind::MaxPlus:
    case SemiringKind::MaxTimes:
    case SemiringKind::MaxMin:
      return -inf;
    default:
      return T(0);
  }
}

template <class T>
T ref_add(SemiringKind k, T a, T b) {
  switch (k) {
    case SemiringKind::PlusTimes:
    case SemiringKind::PlusMin:
    case SemiringKind::PlusPair:
      return a + b;
    case SemiringKind::MinPlus:
    case SemiringKind::MinTimes:
      return std::min(a, b);
    case SemiringKind::MaxPlus:
    case SemiringKind::MaxTimes:
    case SemiringKind::MaxMin:
      return std::max(a, b);
    case SemiringKind::LorLand:
      return (a != 0 || b != 0) ? T(1) : T(0);
    case SemiringKind::AnyPair:
      return a != 0 ? a : b;
    default:
      ADD_FAILURE() << "no oracle for this semiring";
      return a;
  }
}

template <class T>
T ref_mul(SemiringKind k, T a, T b) {
  switch (k) {
    case SemiringKind::PlusTimes:
    case SemiringKind::MaxTimes:
    case SemiringKind::MinTimes:
      return a * b;
    case SemiringKind::MinPlus:
    case SemiringKind::MaxPlus:
      return a + b;
    case SemiringKind::PlusMin:
    case SemiringKind::MaxMin:
      return std::min(a, b);
    case SemiringKind::LorLand:
      return (a != 0 && b != 0) ? T(1) : T(0);
    case SemiringKind::AnyPair:
    case SemiringKind::PlusPair:
      return T(1);
    default:
      ADD_FAILURE() << "no oracle for this semiring";
      return a;
  }
}

template <class T>
T ref_unary(UnaryOp op, T x) {
  switch (op) {
    case UnaryOp::Identity:
      return x;
    case UnaryOp::Relu:
      return x > 0 ? x : T(0);
    default:
      ADD_FAILURE() << "test oracle knows Identity and Relu only";
      return x;
  }
}

template <class T>
T ref_binary(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::Plus:
      return x + y;
    case BinaryOp::Max:
      return std::max(x, y);
    case BinaryOp::Min:
      return std::min(x, y);
    case BinaryOp::Second:
      return y;
    default:
      ADD_FAILURE() << "test oracle knows Plus, Max, Min, Second only";
      return y;
  }
}

/// C = accum(C, act(A ⊕.⊗ B + bias)): naive row loop (pattern: every value 1).
template <class T>
void ref_spmm(SemiringKind k, const Csr& A, bool pattern, const DenseMatrix<T>& B,
              const std::vector<T>* bias, UnaryOp act, Accum accum, DenseMatrix<T>& C) {
  const std::int64_t n = B.cols();
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (std::int64_t c = 0; c < n; ++c) {
      T s = ref_identity<T>(k);
      for (std::int64_t e = A.rp[i]; e < A.rp[i + 1]; ++e) {
        const T a = pattern ? T(1) : static_cast<T>(A.val[e]);
        s = ref_add<T>(k, s, ref_mul<T>(k, a, B(A.ci[e], c)));
      }
      if (bias != nullptr) s = s + (*bias)[c];
      s = ref_unary<T>(act, s);
      C(i, c) = accum.enabled ? ref_binary<T>(accum.op, C(i, c), s) : s;
    }
  }
}

/// out[e] = accum(out[e], S(e) ⊗ ⊕_c X(i,c) ⊗ Y(j,c)) in S's order (Y rows indexed by j).
template <class T>
void ref_sddmm(SemiringKind k, const Csr& S, bool pattern, const DenseMatrix<T>& X,
               const DenseMatrix<T>& Y, Accum accum, std::vector<T>& out) {
  for (std::int64_t i = 0; i < S.rows; ++i) {
    for (std::int64_t e = S.rp[i]; e < S.rp[i + 1]; ++e) {
      T d = ref_identity<T>(k);
      for (std::int64_t c = 0; c < X.cols(); ++c) {
        d = ref_add<T>(k, d, ref_mul<T>(k, X(i, c), Y(S.ci[e], c)));
      }
      const T s = pattern ? T(1) : static_cast<T>(S.val[e]);
      const T t = ref_mul<T>(k, s, d);
      out[e] = accum.enabled ? ref_binary<T>(accum.op, out[e], t) : t;
    }
  }
}

/// Index of the first element where a and b differ (bitwise for NaN-free data), or -1.
template <class T>
std::int64_t first_mismatch(const T* a, const T* b, std::int64_t n) {
  for (std::int64_t e = 0; e < n; ++e) {
    if (!(a[e] == b[e])) return e;
  }
  return -1;
}

}  // namespace spindle::test
