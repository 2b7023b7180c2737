// SPDX-License-Identifier: Apache-2.0
// Graph-building ops (apply over values, diagonal scale, add_identity) and row reductions,
// against dense oracles on every index / value type and the standard shapes.
#include <gtest/gtest.h>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

using test::DenseRef;
using test::MaskCase;
using test::RefVec;

// Compares a graph with a dense reference (structure exactly, values exactly as T).
template <class T, class I>
void expect_graph(const Graph<I, T>& g, const DenseRef& want, const std::string& ctx) {
  ASSERT_EQ(g.rows(), want.rows) << ctx;
  ASSERT_EQ(g.cols(), want.cols) << ctx;
  ASSERT_EQ(g.nnz(), want.nnz()) << ctx;
  for (std::int64_t i = 0; i < want.rows; ++i) {
    I k = g.row_ptr()[i];
    for (std::int64_t j = 0; j < want.cols; ++j) {
      if (!want.has(i, j)) continue;
      ASSERT_LT(k, g.row_ptr()[i + 1]) << ctx << " row " << i;
      ASSERT_EQ(g.col_idx()[k], j) << ctx << " row " << i;
      ASSERT_EQ(g.values()[k], static_cast<T>(want.at(i, j)))
          << ctx << " (" << i << "," << j << ")";
      ++k;
    }
  }
}

TEST(GraphOps, ApplyAndScaleMatchOracleOnEveryTypeAndShape) {
  std::uint64_t seed = 700;
  test::for_each_type([&](auto t, auto i, auto v) {
    using T = decltype(t);
    using I = decltype(i);
    using V = decltype(v);
    for (const auto& shape : test::standard_shapes()) {
      const DenseRef ref = test::make_shape(shape, ++seed);
      const auto A = test::to_graph<I, V>(ref);
      const std::string ctx = std::string(to_string(value_kind_of<V>())) + " " +
                              std::to_string(ref.rows) + "x" + std::to_string(ref.cols);
      DenseRef want = ref;
      for (std::int64_t r = 0; r < ref.rows; ++r) {
        for (std::int64_t c = 0; c < ref.cols; ++c) {
          want.val[r * ref.cols + c] =
              double(T(test::graph_value<V>(ref, r, c)) * T(2) + T(1));  // exact in float
        }
      }
      // apply: x * 2 then + 1 via two applies (PlusScalar over TimesScalar).
      const Graph<I, T> g1 = apply(Unary<T>::times(T(2)), A);
      expect_graph(apply(Unary<T>::plus(T(1)), g1), want, ctx + " apply");

      const Vector<T> left = test::random_vector<T>(ref.rows, 0.3, ++seed);
      const Vector<T> right = test::random_vector<T>(ref.cols, 0.3, ++seed);
      DenseRef sc = ref;
      for (std::int64_t r = 0; r < ref.rows; ++r) {
        for (std::int64_t c = 0; c < ref.cols; ++c) {
          const T l = left.present(r) ? left[r] : T(1);
          const T rr = right.present(c) ? right[c] : T(1);
          sc.val[r * ref.cols + c] = double((l * T(test::graph_value<V>(ref, r, c))) * rr);
        }
      }
      expect_graph(scale(left, A, right), sc, ctx + " scale");
      DenseRef plain = ref;
      for (std::int64_t r = 0; r < ref.rows; ++r) {
        for (std::int64_t c = 0; c < ref.cols; ++c) {
          plain.val[r * ref.cols + c] = test::graph_value<V>(ref, r, c);
        }
      }
      expect_graph(scale(Vector<T>(), A, Vector<T>()), plain, ctx + " scale by nothing");
    }
  });
}

TEST(GraphOps, ScaleRejectsVectorsOfTheWrongSize) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(10, 6, 1));
  EXPECT_THROW(scale(Vector<float>(9), A, Vector<float>(6)), DimensionMismatch);
  EXPECT_THROW(scale(Vector<float>(10), A, Vector<float>(7)), DimensionMismatch);
}

TEST(GraphOps, AddIdentityAddsMissingDiagonalAndKeepsExistingValues) {
  std::uint64_t seed = 800;
  for_each_graph_type([&](auto i, auto v) {
    using I = decltype(i);
    using V = decltype(v);
    for (std::int64_t n : {0, 1, 2, 57}) {
      DenseRef ref = test::random_matrix(n, n, ++seed);
      // Some rows keep their diagonal, some lose it; the last row ends before the diagonal.
      for (std::int64_t r = 0; r < n; ++r) {
        if (r % 3 == 0) ref.present[r * n + r] = 0;
      }
      const auto A = test::to_graph<I, V>(ref);
      DenseRef want = ref;
      for (std::int64_t r = 0; r < n; ++r) {
        if (!want.has(r, r)) {
          want.present[r * n + r] = 1;
          want.val[r * n + r] = 1.0;
        }
      }
      const Graph<I, V> B = add_identity(A);
      if constexpr (is_pattern_v<V>) {
        ASSERT_EQ(B.nnz(), want.nnz());
        const Graph<I, V> W = test::to_graph<I, V>(want);
        EXPECT_EQ(B.row_ptr(), W.row_ptr());
        EXPECT_EQ(B.col_idx(), W.col_idx());
      } else {
        expect_graph(B, want, "add_identity n=" + std::to_string(n));
      }
    }
  });
  const auto R = test::to_graph<std::int32_t, float>(test::random_matrix(4, 5, 2));
  EXPECT_THROW(add_identity(R), DimensionMismatch);
}

const MonoidKind kMonoids[] = {MonoidKind::Plus, MonoidKind::Times, MonoidKind::Min,
                               MonoidKind::Max,  MonoidKind::LOr,   MonoidKind::LAnd,
                               MonoidKind::Any};

// The monoid over terms in order, from the definition (Any: the first term).
template <class T>
T oracle_monoid(MonoidKind m, const std::vector<T>& x) {
  T r = x.front();
  for (std::size_t k = 1; k < x.size(); ++k) {
    switch (m) {
      case MonoidKind::Plus:
        r = r + x[k];
        break;
      case MonoidKind::Times:
        r = r * x[k];
        break;
      case MonoidKind::Min:
        r = std::min(r, x[k]);
        break;
      case MonoidKind::Max:
        r = std::max(r, x[k]);
        break;
      case MonoidKind::LOr:
        r = (r != 0 || x[k] != 0) ? T(1) : T(0);
        break;
      case MonoidKind::LAnd:
        r = (r != 0 && x[k] != 0) ? T(1) : T(0);
        break;
      case MonoidKind::Any:
        break;
    }
  }
  if ((m == MonoidKind::LOr || m == MonoidKind::LAnd) && x.size() == 1) r = r != 0 ? T(1) : T(0);
  return r;
}

TEST(ReduceRows, EveryMonoidMatchesOracleWithMasksAccumAndTranspose) {
  std::uint64_t seed = 900;
  test::for_each_type([&](auto t, auto i, auto v) {
    using T = decltype(t);
    using I = decltype(i);
    using V = decltype(v);
    for (const auto& shape : test::standard_shapes()) {
      const DenseRef ref = test::make_shape(shape, ++seed);
      const auto A = test::to_graph<I, V>(ref);
      for (bool tr : {false, true}) {
        const DenseRef E = tr ? ref.transposed() : ref;
        for (MonoidKind m : kMonoids) {
          RefVec<T> tv;
          for (std::int64_t r = 0; r < E.rows; ++r) {
            std::vector<T> terms;
            for (std::int64_t c = 0; c < E.cols; ++c) {
              if (E.has(r, c)) terms.push_back(T(test::graph_value<V>(E, r, c)));
            }
            tv.p.push_back(terms.empty() ? 0 : 1);
            tv.v.push_back(terms.empty() ? T(0) : oracle_monoid(m, terms));
          }
          // One masked configuration per monoid keeps the case count moderate.
          const auto masks = test::all_masks(E.rows, ++seed);
          const MaskCase& mask = masks[static_cast<std::size_t>(m) % masks.size()];
          for (Accum accum : {Accum::none(), Accum::plus()}) {
            Vector<T> w = test::random_vector<T>(E.rows, 0.3, ++seed);
            const RefVec<T> want = test::oracle_output(test::ref_of(w), tv, mask, accum, true);
            Descriptor d;
            d.transpose_a = tr;
            d.replace = true;
            reduce_rows(w, mask.mask(), accum, m, A, d);
            // Same order (columns ascending) as the kernel: exact for every monoid.
            test::expect_matches(w, want, true,
                                 std::string("reduce_rows ") + to_string(value_kind_of<V>()) +
                                     (tr ? " A^T " : " A ") + mask.name());
          }
        }
      }
    }
  });
}

TEST(GraphOps, CudaDeviceThrowsUnsupportedInCpuBuild) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(10, 10, 3));
  const Descriptor d = Descriptor{}.on(Device::Cuda);
  EXPECT_THROW(apply(Unary<float>{}, A, d), Unsupported);
  EXPECT_THROW(scale(Vector<float>(), A, Vector<float>(), d), Unsupported);
  Vector<float> w;
  EXPECT_THROW(reduce_rows(w, Mask{}, Accum::none(), MonoidKind::Plus, A, d), Unsupported);
}

}  // namespace
}  // namespace spindle
