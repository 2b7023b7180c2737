// SPDX-License-Identifier: Apache-2.0
#pragma once
// Shared pieces of the ops tests: seeded random sparse matrices kept in a dense reference form
// (the oracle's view), conversion to Graph<I, V>, random vectors with absent entries, masks, and
// an independent implementation of the semiring / accumulator / mask rules written from the
// GraphBLAS definitions (dense loops, no code shared with the library's kernels).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/mask.hpp"
#include "spindle/operators.hpp"
#include "spindle/semiring.hpp"
#include "spindle/vector.hpp"

namespace spindle::test {

/// A sparse matrix in dense form: present(i,j) and an exact-in-float value.
struct DenseRef {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::uint8_t> present;
  std::vector<double> val;
  bool has(std::int64_t i, std::int64_t j) const { return present[i * cols + j] != 0; }
  double at(std::int64_t i, std::int64_t j) const { return val[i * cols + j]; }
  std::int64_t nnz() const { return std::count(present.begin(), present.end(), 1); }
  DenseRef transposed() const {
    DenseRef t;
    t.rows = cols;
    t.cols = rows;
    t.present.assign(present.size(), 0);
    t.val.assign(val.size(), 0);
    for (std::int64_t i = 0; i < rows; ++i) {
      for (std::int64_t j = 0; j < cols; ++j) {
        t.present[j * rows + i] = present[i * cols + j];
        t.val[j * rows + i] = val[i * cols + j];
      }
    }
    return t;
  }
};

/// Random matrix: ~15% empty rows, one dense row (all columns), the rest power-law lengths
/// (length ~ cols * x^4 for uniform x: mostly short rows, a few long ones). Values are k/8,
/// k in 1..24, with ~5% explicit zeros: exact in float, so float and double graphs agree.
inline DenseRef random_matrix(std::int64_t rows, std::int64_t cols, std::uint64_t seed,
                              bool dense_row = true) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  DenseRef m;
  m.rows = rows;
  m.cols = cols;
  m.present.assign(static_cast<std::size_t>(rows * cols), 0);
  m.val.assign(static_cast<std::size_t>(rows * cols), 0.0);
  const std::int64_t dense = dense_row && rows > 2 ? rows / 3 : -1;
  for (std::int64_t i = 0; i < rows; ++i) {
    double p;
    if (i == dense) {
      p = 1.0;
    } else if (unif(rng) < 0.15) {
      p = 0.0;
    } else {
      const double x = unif(rng);
      p = std::min(1.0, (1.0 + cols * x * x * x * x) / std::max<std::int64_t>(cols, 1));
    }
    for (std::int64_t j = 0; j < cols; ++j) {
      if (unif(rng) < p) {
        m.present[i * cols + j] = 1;
        m.val[i * cols + j] = unif(rng) < 0.05 ? 0.0 : double(1 + rng() % 24) / 8.0;
      }
    }
  }
  return m;
}

/// CSR Graph<I, V> holding exactly the entries of m (pattern graphs: structure only).
template <class I, class V>
Graph<I, V> to_graph(const DenseRef& m) {
  std::vector<I> rp(static_cast<std::size_t>(m.rows) + 1, 0);
  std::vector<I> ci;
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  for (std::int64_t i = 0; i < m.rows; ++i) {
    for (std::int64_t j = 0; j < m.cols; ++j) {
      if (!m.has(i, j)) continue;
      ci.push_back(static_cast<I>(j));
      if constexpr (!is_pattern_v<V>) vals.push_back(static_cast<V>(m.at(i, j)));
    }
    rp[i + 1] = static_cast<I>(ci.size());
  }
  return Graph<I, V>(static_cast<I>(m.rows), static_cast<I>(m.cols), std::move(rp), std::move(ci),
                     std::move(vals));
}

/// Value of entry (i, j) as a graph of value type V stores it (pattern: 1).
template <class V>
double graph_value(const DenseRef& m, std::int64_t i, std::int64_t j) {
  return is_pattern_v<V> ? 1.0 : m.at(i, j);
}

/// Random vector: values k/4 (k in 0..12, zeros included), each absent with probability
/// `absent` (0: a full vector without bitmap).
template <class T>
Vector<T> random_vector(std::int64_t n, double absent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  Vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(double(rng() % 13) / 4.0);
  if (absent > 0) {
    for (std::int64_t i = 0; i < n; ++i) {
      if (unif(rng) < absent) v.remove(i);
    }
  }
  return v;
}

/// The oracle's view of a vector: values and presence.
template <class T>
struct RefVec {
  std::vector<T> v;
  std::vector<std::uint8_t> p;
};

template <class T>
RefVec<T> ref_of(const Vector<T>& x) {
  RefVec<T> r;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    r.v.push_back(x[i]);
    r.p.push_back(x.present(i) ? 1 : 0);
  }
  return r;
}

// ---- semiring rules, written out per kind ----------------------------------------------------

inline bool is_plus_kind(SemiringKind k) {
  return k == SemiringKind::PlusTimes || k == SemiringKind::PlusMin || k == SemiringKind::PlusPair;
}

template <class T>
T oracle_mul(SemiringKind k, T a, T b) {
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
      return T(0);
  }
}

/// Reduces terms (in the given order) with the semiring's add; `empty` when there are none.
template <class T>
T oracle_reduce(SemiringKind k, const std::vector<T>& terms) {
  const T inf = std::numeric_limits<T>::infinity();
  switch (k) {
    case SemiringKind::PlusTimes:
    case SemiringKind::PlusMin:
    case SemiringKind::PlusPair: {
      T s = T(0);
      for (T x : terms) s = s + x;
      return s;
    }
    case SemiringKind::MinPlus:
    case SemiringKind::MinTimes: {
      T s = inf;
      for (T x : terms) s = std::min(s, x);
      return s;
    }
    case SemiringKind::MaxPlus:
    case SemiringKind::MaxTimes:
    case SemiringKind::MaxMin: {
      T s = -inf;
      for (T x : terms) s = std::max(s, x);
      return s;
    }
    case SemiringKind::LorLand: {
      for (T x : terms) {
        if (x != 0) return T(1);
      }
      return T(0);
    }
    case SemiringKind::AnyPair: {
      // Every term of any_pair is 1; "any" of them is 1.
      return terms.empty() ? T(0) : T(1);
    }
    default:
      ADD_FAILURE() << "no oracle for this semiring";
      return T(0);
  }
}

template <class T>
T oracle_binary(BinaryOp op, T x, T y) {
  switch (op) {
    case BinaryOp::First:
      return x;
    case BinaryOp::Second:
      return y;
    case BinaryOp::Plus:
      return x + y;
    case BinaryOp::Minus:
      return x - y;
    case BinaryOp::Times:
      return x * y;
    case BinaryOp::Div:
      return x / y;
    case BinaryOp::Min:
      return std::min(x, y);
    case BinaryOp::Max:
      return std::max(x, y);
    case BinaryOp::LOr:
      return (x != 0 || y != 0) ? T(1) : T(0);
    case BinaryOp::LAnd:
      return (x != 0 && y != 0) ? T(1) : T(0);
    case BinaryOp::Any:
      return x;
    case BinaryOp::Pair:
      return T(1);
  }
  return x;
}

// ---- masks -------------------------------------------------------------------------------------

/// A test mask configuration. The mask vector is owned here; mask() views it.
struct MaskCase {
  enum Kind { None, Value, Structural } kind = None;
  bool complement = false;
  Vector<float> m;
  Mask mask() const {
    if (kind == None) return Mask{};
    return kind == Value ? Mask::value(m, complement) : Mask::structural(m, complement);
  }
  /// Selection from the definition: present and (structural or nonzero), xor complement.
  bool selects(std::int64_t i) const {
    if (kind == None) return true;
    const bool s = m.present(i) && (kind == Structural || m[i] != 0.0f);
    return s != complement;
  }
  std::string name() const {
    if (kind == None) return "no mask";
    return std::string(complement ? "!" : "") + (kind == Value ? "value" : "structural");
  }
};

/// The five mask configurations over n entries (mask values: ~1/3 zeros, ~1/3 absent).
inline std::vector<MaskCase> all_masks(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Vector<float> m(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto r = rng() % 3;
    m[i] = r == 0 ? 0.0f : 2.0f;
    if (r == 2 && i % 2 == 0) m.remove(i);
  }
  std::vector<MaskCase> out;
  out.push_back({MaskCase::None, false, m});
  out.push_back({MaskCase::Value, false, m});
  out.push_back({MaskCase::Structural, false, m});
  out.push_back({MaskCase::Value, true, m});
  out.push_back({MaskCase::Structural, true, m});
  return out;
}

/// GraphBLAS output step from its definition: z = accum ? accum(w, t) on the union : t;
/// then w = z where selected, w kept (or removed with replace) elsewhere.
template <class T>
RefVec<T> oracle_output(const RefVec<T>& w, const RefVec<T>& t, const MaskCase& mask, Accum accum,
                        bool replace) {
  RefVec<T> out = w;
  for (std::size_t i = 0; i < t.v.size(); ++i) {
    T z{};
    bool zp = false;
    if (accum.enabled) {
      if (w.p[i] && t.p[i]) {
        z = oracle_binary(accum.op, w.v[i], t.v[i]);
        zp = true;
      } else if (w.p[i]) {
        z = w.v[i];
        zp = true;
      } else if (t.p[i]) {
        z = t.v[i];
        zp = true;
      }
    } else {
      z = t.v[i];
      zp = t.p[i] != 0;
    }
    if (mask.selects(static_cast<std::int64_t>(i))) {
      out.v[i] = z;
      out.p[i] = zp;
    } else if (replace) {
      out.p[i] = 0;
    }
  }
  return out;
}

/// Relative closeness for inexact (plus) results; exact equality otherwise.
template <class T>
bool close(T got, T want, bool exact) {
  if (exact) return got == want || (std::isnan(got) && std::isnan(want));
  const double tol = std::is_same_v<T, float> ? 1e-5 : 1e-12;
  const double scale = std::max({1.0, std::fabs(double(got)), std::fabs(double(want))});
  return std::fabs(double(got) - double(want)) <= tol * scale;
}

/// Compares presence exactly and present values exactly or with tolerance; reports the first
/// few differences with `ctx`.
template <class T>
void expect_matches(const Vector<T>& got, const RefVec<T>& want, bool exact,
                    const std::string& ctx) {
  ASSERT_EQ(got.size(), static_cast<std::int64_t>(want.v.size())) << ctx;
  int reported = 0;
  for (std::int64_t i = 0; i < got.size() && reported < 5; ++i) {
    const bool p = got.present(i);
    if (p != (want.p[i] != 0)) {
      ADD_FAILURE() << ctx << ": presence differs at " << i << " (got " << p << ")";
      ++reported;
    } else if (p && !close(got[i], want.v[i], exact)) {
      ADD_FAILURE() << ctx << ": value differs at " << i << ": got " << got[i] << " want "
                    << want.v[i];
      ++reported;
    }
  }
}

/// Bitwise equality of two vectors (values of present entries and presence).
template <class T>
bool same_bits(const Vector<T>& a, const Vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.present(i) != b.present(i)) return false;
    if (a.present(i) && std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return false;
  }
  return true;
}

/// Calls f(T{}, I{}, V{}) for every value type T, index type I and graph value type V.
template <class F>
void for_each_type(F&& f) {
  for_each_graph_type([&](auto i, auto v) {
    f(float{}, i, v);
    f(double{}, i, v);
  });
}

/// Calls f(T{}) for every vector element type the library instantiates.
template <class F>
void for_each_vector_type(F&& f) {
  f(float{});
  f(double{});
  f(std::int32_t{});
  f(std::int64_t{});
}

template <class T>
std::string type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  if constexpr (std::is_same_v<T, double>) return "double";
  if constexpr (std::is_same_v<T, std::int32_t>) return "int32";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  return "?";
}

/// Shapes every op is run on: (rows, cols, dense row?) with 0x0, 1x1 and rectangular cases.
struct ShapeCase {
  std::int64_t rows;
  std::int64_t cols;
  bool dense_row;
  double density_scale;  // 0: no entries at all
};
inline std::vector<ShapeCase> standard_shapes() {
  return {{97, 83, true, 1},  {60, 60, true, 1}, {23, 140, true, 1},
          {150, 9, true, 1},  {0, 0, false, 1},  {1, 1, false, 1},
          {12, 12, false, 0}, {0, 5, false, 1},  {5, 0, false, 1}};
}

inline DenseRef make_shape(const ShapeCase& s, std::uint64_t seed) {
  DenseRef m = random_matrix(s.rows, s.cols, seed, s.dense_row);
  if (s.density_scale == 0) std::fill(m.present.begin(), m.present.end(), 0);
  if (s.rows == 1 && s.cols == 1) {
    m.present[0] = (seed % 2 == 0);
    m.val[0] = 1.5;
  }
  return m;
}

}  // namespace spindle::test
