// SPDX-License-Identifier: Apache-2.0
// The fused random-walk steps (spindle/ops/rank.hpp) on the CPU backend against naive loops in
// double, their argument checks, and bit-identical results for 1, 2 and 3 threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/rank.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

const Descriptor kCpu = Descriptor().on(Device::Cpu);

template <class T>
Vector<T> random_full(std::int64_t n, std::uint64_t seed, double zero_share = 0.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Vector<T> v(n);
  for (std::int64_t i = 0; i < n; ++i) v[i] = u(rng) < zero_share ? T(0) : static_cast<T>(u(rng));
  return v;
}

template <class T>
void check_scale_and_leak(std::int64_t n, std::uint64_t seed) {
  const Vector<T> x = random_full<T>(n, seed);
  const Vector<T> s = random_full<T>(n, seed + 1, 0.3);  // 30% "dangling"
  Vector<T> w(3, T(-7)), leak;                           // wrong sizes: resized
  scale_and_leak(w, leak, x, s, kCpu);
  ASSERT_EQ(w.size(), n);
  ASSERT_EQ(leak.size(), 1);
  ASSERT_TRUE(w.is_full());
  double want = 0.0, mag = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(w[i], x[i] * s[i]) << "w at " << i;  // one rounding: a product is exact to define
    if (s[i] == T(0)) want += static_cast<double>(x[i]);
    mag += std::fabs(static_cast<double>(x[i]));
  }
  // Summation in another order: error within a small multiple of eps times the sum of magnitudes.
  const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-15;
  EXPECT_NEAR(static_cast<double>(leak[0]), want, 64 * eps * (mag + 1)) << "n " << n;
}

TEST(RankSteps, ScaleAndLeakMatchesNaiveLoops) {
  for (std::int64_t n : {1, 7, 4096, 4097, 100003}) {
    check_scale_and_leak<float>(n, 10 + n);
    check_scale_and_leak<double>(n, 20 + n);
  }
}

template <class T>
void check_teleport(std::int64_t n, bool sparse_y, bool with_p, std::uint64_t seed) {
  const Vector<T> x = random_full<T>(n, seed);
  Vector<T> y = random_full<T>(n, seed + 1);
  if (sparse_y) {
    for (std::int64_t i = 0; i < n; i += 3) y.remove(i);  // rows without in-edges after vxm
  }
  const Vector<T> p = random_full<T>(n, seed + 2);
  const Vector<T> leak(1, static_cast<T>(0.25));
  const double t0 = 0.15 / double(n), t1 = 0.85 / double(n);
  const T c = static_cast<T>(t0 + t1 * 0.25);
  std::vector<double> want(static_cast<std::size_t>(n));
  double residual = 0.0, mag = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T yi = y.present(i) ? y[i] : T(0);
    const T v = yi + (with_p ? c * p[i] : c);
    want[static_cast<std::size_t>(i)] = static_cast<double>(v);
    residual += std::fabs(static_cast<double>(v) - static_cast<double>(x[i]));
    mag += std::fabs(static_cast<double>(v)) + std::fabs(static_cast<double>(x[i]));
  }
  const T r = teleport_and_residual<T>(y, x, leak, t0, t1, with_p ? &p : nullptr, kCpu);
  ASSERT_TRUE(y.is_full());
  // Summation in another order: error within a small multiple of eps times the sum of magnitudes.
  const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-15;
  for (std::int64_t i = 0; i < n; ++i) {  // one or two roundings (the compiler may fuse c*p+y)
    const double wi = want[static_cast<std::size_t>(i)];
    ASSERT_NEAR(static_cast<double>(y[i]), wi, 2 * eps * std::fabs(wi)) << "entry " << i;
  }
  EXPECT_NEAR(static_cast<double>(r), residual, 64 * eps * (mag + 1));
}

TEST(RankSteps, TeleportAndResidualMatchesNaiveLoops) {
  for (std::int64_t n : {1, 5, 8192, 8193, 65537}) {
    for (bool sparse : {false, true}) {
      for (bool with_p : {false, true}) {
        check_teleport<float>(n, sparse, with_p, 100 + n);
        check_teleport<double>(n, sparse, with_p, 200 + n);
      }
    }
  }
}

TEST(RankSteps, RefusesNonFullInputsWrongSizesAndAliasing) {
  Vector<float> x(10, 0.1f), s(10, 1.0f), w, leak(1, 0.0f), y(10, 0.0f);
  Vector<float> holes = x;
  holes.remove(3);
  EXPECT_THROW(scale_and_leak(w, leak, holes, s, kCpu), InvalidArgument);
  EXPECT_THROW(scale_and_leak(w, leak, x, holes, kCpu), InvalidArgument);
  EXPECT_THROW(scale_and_leak(w, leak, x, Vector<float>(9, 1.0f), kCpu), DimensionMismatch);
  EXPECT_THROW(scale_and_leak(x, leak, x, s, kCpu), InvalidArgument);  // w aliases x
  EXPECT_THROW(teleport_and_residual<float>(y, holes, leak, 0.1, 0.1, nullptr, kCpu),
               InvalidArgument);
  EXPECT_THROW(teleport_and_residual<float>(y, x, Vector<float>(2, 0.0f), 0.1, 0.1, nullptr, kCpu),
               DimensionMismatch);
  EXPECT_THROW(teleport_and_residual<float>(y, x, leak, 0.1, 0.1, &holes, kCpu), InvalidArgument);
  Vector<float> short_out(9);
  EXPECT_THROW(teleport_and_residual<float>(short_out, x, leak, 0.1, 0.1, nullptr, kCpu),
               DimensionMismatch);
  EXPECT_THROW(teleport_and_residual<float>(y, y, leak, 0.1, 0.1, nullptr, kCpu), InvalidArgument);
  // Nothing was written by the refused calls.
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(w.size(), 0);
}

TEST(RankSteps, SameBitsForOneTwoAndThreeThreads) {
  const std::int64_t n = 300007;
  const Vector<float> x = random_full<float>(n, 5);
  const Vector<float> s = random_full<float>(n, 6, 0.2);
  Vector<float> y0 = random_full<float>(n, 7);
  for (std::int64_t i = 0; i < n; i += 5) y0.remove(i);
  auto run = [&](Vector<float>& w, Vector<float>& y) {
    Vector<float> leak;
    scale_and_leak(w, leak, x, s, kCpu);
    y = y0;
    return teleport_and_residual<float>(y, x, leak, 1e-6, 2e-6, nullptr, kCpu) + leak[0];
  };
  const bool adaptive = adaptive_cpu_threads();
  set_adaptive_cpu_threads(false);  // else capped at the cores other processes leave free
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  Vector<float> w1, y1;
  const float r1 = run(w1, y1);
  for (int t : {2, 3}) {
    omp_set_num_threads(t);
    Vector<float> wt, yt;
    const float rt = run(wt, yt);
    EXPECT_EQ(std::memcmp(&r1, &rt, sizeof r1), 0) << t << " threads";
    EXPECT_EQ(std::memcmp(w1.data(), wt.data(), sizeof(float) * n), 0) << t << " threads";
    EXPECT_EQ(std::memcmp(y1.data(), yt.data(), sizeof(float) * n), 0) << t << " threads";
  }
  omp_set_num_threads(saved);
  set_adaptive_cpu_threads(adaptive);
}

/// The fused step against the two calls it replaces, on the same backend: every output to the bit.
template <class T>
void check_fused_step(std::int64_t n, bool sparse_y, bool with_p, std::uint64_t seed) {
  const Vector<T> x = random_full<T>(n, seed);
  const Vector<T> s = random_full<T>(n, seed + 1, 0.3);
  const Vector<T> p = random_full<T>(n, seed + 2);
  Vector<T> y = random_full<T>(n, seed + 3);
  if (sparse_y) {
    for (std::int64_t i = 0; i < n; i += 3) y.remove(i);
  }
  const double t0 = 0.15 / double(n), t1 = 0.85 / double(n);
  Vector<T> y_two = y, w_two, leak_two(1, static_cast<T>(0.375));
  const T r_two = teleport_and_residual<T>(y_two, x, leak_two, t0, t1, with_p ? &p : nullptr, kCpu);
  scale_and_leak(w_two, leak_two, y_two, s, kCpu);

  Vector<T> y_one = y, w_one(n, T(-3)), leak_one(1, static_cast<T>(0.375));
  PendingScalar<T> r = teleport_residual_and_scale<T>(y_one, x, leak_one, t0, t1,
                                                      with_p ? &p : nullptr, w_one, s, kCpu);
  ASSERT_TRUE(r.ready()) << "the CPU backend knows the residual at once";
  const T r_one = r.get();
  ASSERT_TRUE(y_one.is_full());
  ASSERT_TRUE(w_one.is_full());
  ASSERT_EQ(w_one.size(), n);
  EXPECT_EQ(std::memcmp(&r_one, &r_two, sizeof(T)), 0) << "residual, n " << n;
  EXPECT_EQ(std::memcmp(leak_one.data(), leak_two.data(), sizeof(T)), 0) << "leak, n " << n;
  EXPECT_EQ(std::memcmp(y_one.data(), y_two.data(), sizeof(T) * n), 0) << "x_new, n " << n;
  EXPECT_EQ(std::memcmp(w_one.data(), w_two.data(), sizeof(T) * n), 0) << "w, n " << n;
  EXPECT_GT(r_one, T(0));
}

TEST(RankSteps, FusedStepGivesTheTwoCallsBitsForAnyThreadCount) {
  const int saved = omp_get_max_threads();
  for (int t : {1, 3}) {
    omp_set_num_threads(t);
    for (std::int64_t n : {1, 6, 8192, 8193, 100003}) {
      for (bool sparse : {false, true}) {
        for (bool with_p : {false, true}) {
          check_fused_step<float>(n, sparse, with_p, 300 + n);
          check_fused_step<double>(n, sparse, with_p, 400 + n);
        }
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(RankSteps, FusedStepRefusesWhatTheTwoCallsRefuseAndAliasedOutputs) {
  Vector<float> x(10, 0.1f), s(10, 1.0f), w(10, 0.0f), leak(1, 0.0f), y(10, 0.0f);
  Vector<float> holes = x;
  holes.remove(3);
  auto step = [&](Vector<float>& yy, const Vector<float>& xx, Vector<float>& ll,
                  const Vector<float>* pp, Vector<float>& ww, const Vector<float>& ss) {
    return teleport_residual_and_scale<float>(yy, xx, ll, 0.1, 0.1, pp, ww, ss, kCpu);
  };
  EXPECT_THROW(step(y, holes, leak, nullptr, w, s), InvalidArgument);
  EXPECT_THROW(step(y, x, leak, nullptr, w, holes), InvalidArgument);
  EXPECT_THROW(step(y, x, leak, &holes, w, s), InvalidArgument);
  Vector<float> leak_holes = Vector<float>::empty(1);
  EXPECT_THROW(step(y, x, leak_holes, nullptr, w, s), InvalidArgument);  // leak not full
  Vector<float> two(2, 0.0f), nine(9, 1.0f), short_y(9);
  EXPECT_THROW(step(y, x, two, nullptr, w, s), DimensionMismatch);
  EXPECT_THROW(step(y, x, leak, nullptr, w, nine), DimensionMismatch);
  EXPECT_THROW(step(y, x, leak, &nine, w, s), DimensionMismatch);
  EXPECT_THROW(step(short_y, x, leak, nullptr, w, s), DimensionMismatch);
  EXPECT_THROW(step(y, y, leak, nullptr, w, s), InvalidArgument);  // x_new is x
  EXPECT_THROW(step(y, x, leak, nullptr, y, s), InvalidArgument);  // w is x_new
  EXPECT_THROW(step(y, x, leak, nullptr, w, w), InvalidArgument);  // w is scale
  EXPECT_THROW(step(y, x, leak, &w, w, s), InvalidArgument);       // w is the teleport
  EXPECT_THROW(step(y, x, leak, nullptr, x, s), InvalidArgument);  // w is x
  Vector<float> one(1, 0.0f), x1(1, 0.5f), s1(1, 1.0f), w1(1, 0.0f), l1(1, 0.0f);
  auto step1 = [&](Vector<float>& yy, Vector<float>& ll, Vector<float>& ww) {
    return teleport_residual_and_scale<float>(yy, x1, ll, 0.1, 0.1, nullptr, ww, s1, kCpu);
  };
  EXPECT_THROW(step1(one, one, w1), InvalidArgument);  // leak is x_new (n = 1)
  EXPECT_THROW(step1(one, l1, l1), InvalidArgument);   // w is leak
  EXPECT_THROW(step1(one, l1, one), InvalidArgument);  // w is x_new
  // Nothing was written by the refused calls.
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(leak[0], 0.0f);
}

template <class T>
void check_normalize(std::int64_t n, std::uint64_t seed, bool zero) {
  const Vector<T> x = random_full<T>(n, seed);
  Vector<T> y = zero ? Vector<T>(n, T(0)) : random_full<T>(n, seed + 1);
  // The three ops power iteration used before, on the same backend.
  Vector<T> y_old = y, sq;
  ewise_mult(sq, Mask{}, Accum::none(), BinaryOp::Times, y_old, y_old, kCpu);
  const T norm_old = std::sqrt(reduce(MonoidKind::Plus, sq, kCpu));
  apply(y_old, Mask{}, Accum::none(),
        Unary<T>::make(UnaryOp::DivByScalar, norm_old == T(0) ? T(1) : norm_old), y_old, kCpu);
  const T change_old = l1_distance(y_old, x, kCpu);

  NormalizedStep<T> s = normalize_and_distance(y, x, kCpu);
  ASSERT_TRUE(s.norm.ready());
  ASSERT_TRUE(s.change.ready());
  const T norm = s.norm.get(), change = s.change.get();
  EXPECT_EQ(std::memcmp(&norm, &norm_old, sizeof(T)), 0) << "norm, n " << n;
  EXPECT_EQ(std::memcmp(&change, &change_old, sizeof(T)), 0) << "change, n " << n;
  EXPECT_EQ(std::memcmp(y.data(), y_old.data(), sizeof(T) * n), 0) << "y, n " << n;
  // And against double loops.
  if (zero) {
    EXPECT_EQ(norm, T(0));
    for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(y[i], T(0)) << "a vanished y stays 0";
  } else {
    const Vector<T> y0 = random_full<T>(n, seed + 1);
    double ss = 0.0;
    for (std::int64_t i = 0; i < n; ++i) ss += double(y0[i]) * double(y0[i]);
    const double eps = std::is_same_v<T, float> ? 1e-6 : 1e-15;
    EXPECT_NEAR(double(norm), std::sqrt(ss), 64 * eps * std::sqrt(ss));
    double l1 = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
      const double yi = double(y0[i]) / std::sqrt(ss);
      ASSERT_NEAR(double(y[i]), yi, 128 * eps * std::fabs(yi) + 1e-30) << "entry " << i;
      l1 += std::fabs(yi - double(x[i]));
    }
    EXPECT_NEAR(double(change), l1, 256 * eps * (l1 + n));
  }
}

TEST(RankSteps, NormalizeAndDistanceGivesTheThreeOpsBits) {
  for (std::int64_t n : {1, 9, 4096, 4097, 100003}) {
    check_normalize<float>(n, 500 + n, false);
    check_normalize<double>(n, 600 + n, false);
  }
  check_normalize<float>(1000, 7, true);
  check_normalize<double>(1000, 8, true);
}

TEST(RankSteps, NormalizeAndDistanceRefusesHolesWrongSizesAndAliasing) {
  Vector<float> x(10, 0.1f), y(10, 2.0f);
  Vector<float> holes = x;
  holes.remove(4);
  EXPECT_THROW(normalize_and_distance(holes, x, kCpu), InvalidArgument);
  EXPECT_THROW(normalize_and_distance(y, holes, kCpu), InvalidArgument);
  Vector<float> nine(9, 1.0f);
  EXPECT_THROW(normalize_and_distance(nine, x, kCpu), DimensionMismatch);
  EXPECT_THROW(normalize_and_distance(y, y, kCpu), InvalidArgument);
  EXPECT_EQ(y[0], 2.0f) << "a refused call writes nothing";
}

TEST(RankSteps, PendingScalarWaitsOnceAndKeepsItsValue) {
  int waits = 0;
  PendingScalar<double> p(std::function<double()>([&] {
    ++waits;
    return 2.5;
  }));
  EXPECT_FALSE(p.ready());
  EXPECT_EQ(p.get(), 2.5);
  EXPECT_TRUE(p.ready());
  EXPECT_EQ(p.get(), 2.5);
  EXPECT_EQ(waits, 1);
  PendingScalar<float> known(1.5f);
  EXPECT_TRUE(known.ready());
  EXPECT_EQ(known.get(), 1.5f);
}

}  // namespace
}  // namespace spindle
