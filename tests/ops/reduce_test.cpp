// SPDX-License-Identifier: Apache-2.0
// Scalar reductions and the L1 distance against oracles in index order, across block
// boundaries, with absent entries; monoid identities.
#include <gtest/gtest.h>

#include <cmath>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

const MonoidKind kMonoids[] = {MonoidKind::Plus, MonoidKind::Times, MonoidKind::Min,
                               MonoidKind::Max,  MonoidKind::LOr,   MonoidKind::LAnd,
                               MonoidKind::Any};

TEST(Reduce, MonoidIdentitiesAreTheDocumentedValues) {
  EXPECT_EQ(monoid_identity<float>(MonoidKind::Plus), 0.0f);
  EXPECT_EQ(monoid_identity<float>(MonoidKind::Times), 1.0f);
  EXPECT_EQ(monoid_identity<double>(MonoidKind::Min), std::numeric_limits<double>::infinity());
  EXPECT_EQ(monoid_identity<double>(MonoidKind::Max), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(monoid_identity<std::int32_t>(MonoidKind::Min),
            std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(monoid_identity<std::int64_t>(MonoidKind::Max),
            std::numeric_limits<std::int64_t>::lowest());
  EXPECT_EQ(monoid_identity<float>(MonoidKind::LOr), 0.0f);
  EXPECT_EQ(monoid_identity<float>(MonoidKind::LAnd), 1.0f);
  EXPECT_EQ(monoid_identity<float>(MonoidKind::Any), 0.0f);
}

TEST(Reduce, EveryMonoidMatchesOracleAcrossBlocksWithAbsentEntries) {
  std::uint64_t seed = 1100;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t n : {0, 1, 7, 4096, 4097, 20000}) {
      for (double absent : {0.0, 0.5, 1.0}) {
        const Vector<T> u = test::random_vector<T>(n, absent, ++seed);
        for (MonoidKind m : kMonoids) {
          // Oracle: in index order over present entries, in double for Plus.
          bool any = false;
          T first{};
          double sum = 0;
          T prod = T(1);
          T mn = monoid_identity<T>(MonoidKind::Min);
          T mx = monoid_identity<T>(MonoidKind::Max);
          bool lor = false;
          bool land = true;
          for (std::int64_t i = 0; i < n; ++i) {
            if (!u.present(i)) continue;
            if (!any) first = u[i];
            any = true;
            sum += double(u[i]);
            prod = prod * u[i];
            mn = std::min(mn, u[i]);
            mx = std::max(mx, u[i]);
            lor = lor || u[i] != 0;
            land = land && u[i] != 0;
          }
          const T got = reduce(m, u);
          const std::string ctx = test::type_name<T>() + " " + std::to_string(n) + " " +
                                  std::to_string(absent) + " monoid " +
                                  std::to_string(static_cast<int>(m));
          switch (m) {
            case MonoidKind::Plus:
              EXPECT_TRUE(test::close(got, static_cast<T>(sum), false)) << ctx << " " << got;
              break;
            case MonoidKind::Times:
              // Values are in {0, 1/4, ..., 3}: with n > 1000 the product is 0 or inf in
              // either order; compare exactly only where it cannot depend on order.
              if (n <= 7) {
                EXPECT_TRUE(test::close(got, prod, false)) << ctx;
              }
              break;
            case MonoidKind::Min:
              EXPECT_EQ(got, mn) << ctx;
              break;
            case MonoidKind::Max:
              EXPECT_EQ(got, mx) << ctx;
              break;
            case MonoidKind::LOr:
              EXPECT_EQ(got, any ? T(lor ? 1 : 0) : T(0)) << ctx;
              break;
            case MonoidKind::LAnd:
              EXPECT_EQ(got, any ? T(land ? 1 : 0) : T(1)) << ctx;
              break;
            case MonoidKind::Any:
              EXPECT_EQ(got, any ? first : T(0)) << ctx;
              break;
          }
        }
      }
    }
  });
}

TEST(Reduce, L1DistanceSumsOverEntriesPresentInBoth) {
  std::uint64_t seed = 1200;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    for (std::int64_t n : {0, 1, 5000, 9000}) {
      for (double absent : {0.0, 0.3}) {
        const Vector<T> u = test::random_vector<T>(n, absent, ++seed);
        const Vector<T> v = test::random_vector<T>(n, absent, ++seed);
        double want = 0;
        for (std::int64_t i = 0; i < n; ++i) {
          if (u.present(i) && v.present(i)) want += std::fabs(double(u[i]) - double(v[i]));
        }
        EXPECT_TRUE(test::close(l1_distance(u, v), static_cast<T>(want), false))
            << test::type_name<T>() << " n=" << n;
      }
    }
  });
  EXPECT_THROW(l1_distance(Vector<float>(3), Vector<float>(4)), DimensionMismatch);
}

TEST(Reduce, CudaDeviceThrowsUnsupportedInCpuBuild) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const Descriptor d = Descriptor{}.on(Device::Cuda);
  EXPECT_THROW(reduce(MonoidKind::Plus, Vector<float>(5), d), Unsupported);
  EXPECT_THROW(l1_distance(Vector<float>(5), Vector<float>(5), d), Unsupported);
}

}  // namespace
}  // namespace spindle
