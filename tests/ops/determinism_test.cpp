// SPDX-License-Identifier: Apache-2.0
// Bit-identical results for 1, 2, 3 and 4 OpenMP threads and run to run, on inputs large enough
// that every kernel takes its parallel path (work far above the serial cut-off and, for
// reductions, many fixed-size blocks).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <functional>
#include <set>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops.hpp"
#include "spindle/ops/cpu/parallel.hpp"
#include "spindle/ops/cpu/reduce_impl.hpp"

namespace spindle {
namespace {

// Power-law CSR built directly (a dense reference would be too large): rows of length
// ~ 1 + 200 x^6, one row with every column, some empty rows. Values k/7 (not exact sums).
template <class I, class V>
Graph<I, V> big_graph(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::vector<I> rp(1, 0);
  std::vector<I> ci;
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  for (std::int64_t i = 0; i < n; ++i) {
    std::set<I> cols;
    if (i == n / 2) {
      for (std::int64_t j = 0; j < n; ++j) cols.insert(static_cast<I>(j));
    } else if (unif(rng) > 0.1) {
      const double x = unif(rng);
      const auto len = static_cast<std::int64_t>(1 + 200 * x * x * x * x * x * x);
      while (static_cast<std::int64_t>(cols.size()) < len) cols.insert(static_cast<I>(rng() % n));
    }
    for (I c : cols) {
      ci.push_back(c);
      if constexpr (!is_pattern_v<V>) vals.push_back(static_cast<V>(double(1 + rng() % 13) / 7));
    }
    rp.push_back(static_cast<I>(ci.size()));
  }
  return Graph<I, V>(static_cast<I>(n), static_cast<I>(n), std::move(rp), std::move(ci),
                     std::move(vals));
}

template <class T>
Vector<T> irregular_vector(std::int64_t n, double absent, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  Vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(unif(rng) * 3.0 - 0.5);
  for (std::int64_t i = 0; absent > 0 && i < n; ++i) {
    if (unif(rng) < absent) v.remove(i);
  }
  return v;
}

// Runs f with 1, 2, 3 and 4 threads (twice with 2) and expects bit-identical results.
template <class R>
void expect_same_for_thread_counts(const std::function<R()>& f,
                                   const std::function<bool(const R&, const R&)>& same,
                                   const char* what) {
  // The adaptation to the machine's load would cap the counts at the free cores.
  const bool adaptive = adaptive_cpu_threads();
  set_adaptive_cpu_threads(false);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const R ref = f();
  for (int threads : {2, 2, 3, 4}) {
    omp_set_num_threads(threads);
    EXPECT_TRUE(same(ref, f())) << what << " differs with " << threads << " threads";
  }
  omp_set_num_threads(saved);
  set_adaptive_cpu_threads(adaptive);
}

template <class T>
bool same_vec(const Vector<T>& a, const Vector<T>& b) {
  return test::same_bits(a, b);
}
template <class T>
bool same_raw(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

constexpr std::int64_t kN = 30000;

TEST(Determinism, MxvAndVxmAreBitIdenticalForAnyThreadCount) {
  const auto A = big_graph<std::int32_t, float>(kN, 1);
  const auto P = A.with_values<Pattern>();
  ASSERT_GT(A.nnz() + A.rows(), 10 * detail::cpu_kernels::kSerialWork);
  const Vector<float> u = irregular_vector<float>(kN, 0.0, 2);
  const Vector<float> us = irregular_vector<float>(kN, 0.3, 3);
  const Vector<float> m = irregular_vector<float>(kN, 0.5, 4);
  const semiring::plus_times<float> s;
  using F = std::function<Vector<float>()>;
  const auto same = [](const Vector<float>& a, const Vector<float>& b) { return same_vec(a, b); };
  expect_same_for_thread_counts<Vector<float>>(F([&] {
                                                 Vector<float> w;
                                                 mxv(w, Mask{}, Accum::none(), s, A, u);
                                                 return w;
                                               }),
                                               same, "mxv plus_times float");
  expect_same_for_thread_counts<Vector<float>>(F([&] {
                                                 Vector<float> w;
                                                 vxm(w, Mask{}, Accum::none(), s, u, P);
                                                 return w;
                                               }),
                                               same, "vxm pattern");
  expect_same_for_thread_counts<Vector<float>>(
      F([&] {
        Vector<float> w = irregular_vector<float>(kN, 0.2, 5);
        mxv(w, Mask::value(m, true), Accum::plus(), s, A, us, Descriptor{}.with_replace());
        return w;
      }),
      same, "masked accumulating mxv over a sparse u");
}

TEST(Determinism, ReductionsAreBitIdenticalForAnyThreadCount) {
  const std::int64_t n = 1 << 20;
  const Vector<float> u = irregular_vector<float>(n, 0.0, 6);
  const Vector<float> v = irregular_vector<float>(n, 0.25, 7);
  ASSERT_GT(n / detail::cpu_kernels::kReduceBlock, 100);
  const auto same = [](const float& a, const float& b) {
    return std::memcmp(&a, &b, sizeof(float)) == 0;
  };
  using F = std::function<float()>;
  expect_same_for_thread_counts<float>(F([&] { return reduce(MonoidKind::Plus, u); }), same,
                                       "reduce plus full");
  expect_same_for_thread_counts<float>(F([&] { return reduce(MonoidKind::Plus, v); }), same,
                                       "reduce plus sparse");
  expect_same_for_thread_counts<float>(F([&] { return l1_distance(u, v); }), same, "l1_distance");
  const auto A = big_graph<std::int64_t, float>(kN, 8);
  expect_same_for_thread_counts<Vector<float>>(
      std::function<Vector<float>()>([&] {
        Vector<float> w;
        reduce_rows(w, Mask{}, Accum::none(), MonoidKind::Plus, A, Descriptor{}.with_transpose_a());
        return w;
      }),
      [](const Vector<float>& a, const Vector<float>& b) { return same_vec(a, b); },
      "reduce_rows over columns");
}

TEST(Determinism, MxmAndSddmmAreBitIdenticalForAnyThreadCount) {
  const auto A = big_graph<std::int32_t, float>(kN / 3, 9);
  const std::int64_t n = A.rows();
  DenseMatrix<float> B(n, 8);
  DenseMatrix<float> X(n, 16);
  std::mt19937_64 rng(10);
  for (auto& x : B.storage()) x = float(rng() % 1000) / 997.0f;
  for (auto& x : X.storage()) x = float(rng() % 1000) / 991.0f;
  expect_same_for_thread_counts<std::vector<float>>(
      std::function<std::vector<float>()>([&] {
        DenseMatrix<float> C;
        mxm(C, semiring::plus_times<float>{}, A, B);
        return C.storage();
      }),
      [](const std::vector<float>& a, const std::vector<float>& b) { return same_raw(a, b); },
      "mxm N=8");
  expect_same_for_thread_counts<std::vector<float>>(
      std::function<std::vector<float>()>([&] {
        std::vector<float> out;
        sddmm(out, semiring::plus_times<float>{}, A, X, X);
        return out;
      }),
      [](const std::vector<float>& a, const std::vector<float>& b) { return same_raw(a, b); },
      "sddmm K=16");
}

}  // namespace
}  // namespace spindle
