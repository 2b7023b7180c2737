// SPDX-License-Identifier: Apache-2.0
// GrB_assign into vectors (scalar / vector, all indices / index lists) against oracles written
// from the definition: Z = w with the assigned region replaced (or accumulated), then the mask.
#include <gtest/gtest.h>

#include "ops_test_util.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/assign.hpp"

namespace spindle {
namespace {

using test::MaskCase;
using test::RefVec;

const Accum kAccums[] = {Accum::none(), Accum::plus(), Accum::min()};

// For index-list assignment: t holds the region's values (present where assigned); outside the
// region Z(i) = w(i). In the region, as GrB_assign: Z = t without an accumulator (an absent t
// removes the entry), Z = accum(w, t) with one (an absent t keeps w). Then the mask step.
// (oracle_output covers the all-indices case.)
template <class T>
RefVec<T> oracle_list(const RefVec<T>& w, const RefVec<T>& t, const std::vector<std::uint8_t>& in,
                      const MaskCase& mask, Accum accum, bool replace) {
  RefVec<T> out = w;
  for (std::size_t i = 0; i < w.v.size(); ++i) {
    T z = w.v[i];
    bool zp = w.p[i] != 0;
    if (in[i] && t.p[i]) {
      z = (accum.enabled && w.p[i]) ? test::oracle_binary(accum.op, w.v[i], t.v[i]) : t.v[i];
      zp = true;
    } else if (in[i] && !accum.enabled) {
      zp = false;
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

TEST(Assign, ScalarAndVectorToAllIndicesFollowMaskAccumReplace) {
  std::uint64_t seed = 1300;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = 300;
    for (const MaskCase& mask : test::all_masks(n, ++seed)) {
      for (bool replace : {false, true}) {
        for (Accum accum : kAccums) {
          const Descriptor d = Descriptor{}.with_replace(replace);
          const Vector<T> w0 = test::random_vector<T>(n, 0.3, ++seed);
          // Scalar.
          RefVec<T> ts{std::vector<T>(n, T(2)), std::vector<std::uint8_t>(n, 1)};
          Vector<T> w = w0;
          assign(w, mask.mask(), accum, T(2), d);
          test::expect_matches(w, test::oracle_output(test::ref_of(w0), ts, mask, accum, replace),
                               true, test::type_name<T>() + " scalar " + mask.name());
          // Vector.
          const Vector<T> u = test::random_vector<T>(n, 0.4, ++seed);
          w = w0;
          assign(w, mask.mask(), accum, u, d);
          test::expect_matches(
              w, test::oracle_output(test::ref_of(w0), test::ref_of(u), mask, accum, replace), true,
              test::type_name<T>() + " vector " + mask.name());
        }
      }
    }
  });
}

TEST(Assign, IndexListsKeepOtherEntriesAbsentValuesDeleteAndTheLastDuplicateWins) {
  std::uint64_t seed = 1400;
  test::for_each_vector_type([&](auto tag) {
    using T = decltype(tag);
    const std::int64_t n = 120;
    std::mt19937_64 rng(seed);
    for (const MaskCase& mask : test::all_masks(n, ++seed)) {
      for (bool replace : {false, true}) {
        for (Accum accum : kAccums) {
          const Descriptor d = Descriptor{}.with_replace(replace);
          const Vector<T> w0 = test::random_vector<T>(n, 0.3, ++seed);
          std::vector<std::int64_t> idx;
          for (int k = 0; k < 60; ++k) idx.push_back(static_cast<std::int64_t>(rng() % n));
          idx.push_back(idx.front());  // a guaranteed duplicate
          const Vector<T> u =
              test::random_vector<T>(static_cast<std::int64_t>(idx.size()), 0.3, ++seed);
          std::vector<std::uint8_t> in(n, 0);
          RefVec<T> ts{std::vector<T>(n, T(5)), std::vector<std::uint8_t>(n, 1)};
          RefVec<T> tu{std::vector<T>(n, T(0)), std::vector<std::uint8_t>(n, 0)};
          for (std::size_t k = 0; k < idx.size(); ++k) {
            in[idx[k]] = 1;
            // Later k overwrite, present or absent: the last one wins.
            const bool p = u.present(static_cast<std::int64_t>(k));
            tu.v[idx[k]] = p ? u[k] : T(0);
            tu.p[idx[k]] = p ? 1 : 0;
          }
          Vector<T> w = w0;
          assign(w, mask.mask(), accum, T(5), idx, d);
          test::expect_matches(w, oracle_list(test::ref_of(w0), ts, in, mask, accum, replace), true,
                               test::type_name<T>() + " scalar list " + mask.name());
          w = w0;
          assign(w, mask.mask(), accum, u, idx, d);
          test::expect_matches(w, oracle_list(test::ref_of(w0), tu, in, mask, accum, replace), true,
                               test::type_name<T>() + " vector list " + mask.name());
        }
      }
    }
  });
}

TEST(Assign, AnAbsentValueInAnIndexListRemovesTheEntryUnlessAccumulated) {
  const std::vector<std::int64_t> idx = {0, 1, 3};
  Vector<double> u(3);
  u.clear();
  u.set(0, 10.0);
  u.set(2, 30.0);  // u(1) absent
  Vector<double> w(4);
  for (std::int64_t i = 0; i < 4; ++i) w[i] = static_cast<double>(i + 1);
  const Vector<double> w0 = w;
  assign(w, Mask{}, Accum::none(), u, idx);  // w(0, 1, 3) = (10, absent, 30)
  EXPECT_EQ(w[0], 10.0);
  EXPECT_FALSE(w.present(1));
  EXPECT_EQ(w[2], 3.0);
  EXPECT_EQ(w[3], 30.0);
  w = w0;
  assign(w, Mask{}, Accum::plus(), u, idx);  // w(1) kept: nothing to add
  EXPECT_EQ(w[0], 11.0);
  EXPECT_EQ(w[1], 2.0);
  EXPECT_EQ(w[3], 34.0);
  // Only where the mask selects: index 1 is not selected, so it stays.
  Vector<std::uint8_t> m(4, 0);
  m[0] = 1;
  w = w0;
  assign(w, Mask::value(m), Accum::none(), u, idx);
  EXPECT_EQ(w[0], 10.0);
  EXPECT_EQ(w[1], 2.0);
  EXPECT_EQ(w[3], 4.0);
  // A repeated index: the last one wins even when it is absent.
  Vector<double> d(2);
  d.clear();
  d.set(0, 7.0);
  w = w0;
  assign(w, Mask{}, Accum::none(), d, std::vector<std::int64_t>{2, 2});
  EXPECT_FALSE(w.present(2));
  w = w0;
  assign(w, Mask{}, Accum::none(), d, std::vector<std::int64_t>{3, 2});
  EXPECT_EQ(w[3], 7.0);
  EXPECT_FALSE(w.present(2));
}

TEST(Assign, TheScalarConvertsToTheVectorsTypeLikeAnAssignment) {
  // The scalar takes no part in deduction: an int literal into a double or float vector, a
  // double into a float vector.
  Vector<double> w(3, 5.0);
  assign(w, Mask{}, Accum::none(), 0);
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(w[i], 0.0);
  Vector<float> f(2, 1.0f);
  assign(f, Mask{}, Accum::plus(), 1.5, std::vector<std::int64_t>{1});
  EXPECT_EQ(f[0], 1.0f);
  EXPECT_EQ(f[1], 2.5f);
}

TEST(Assign, AMaskOfSizeZeroIsStillAMaskAndItsSizeIsChecked) {
  Vector<double> w(3, 1.0);
  Vector<std::uint8_t> none(0);
  EXPECT_THROW(assign(w, Mask::value(none), Accum::none(), 2.0), DimensionMismatch);
  EXPECT_THROW(assign(w, Mask::structural(none, true), Accum::none(), 2.0), DimensionMismatch);
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(w[i], 1.0);  // untouched
  // On an output of size 0 it is the right size.
  Vector<double> e(0);
  assign(e, Mask::value(none), Accum::none(), 2.0);
  EXPECT_EQ(e.size(), 0);
}

TEST(Assign, BadIndicesAndSizesThrow) {
  Vector<float> w(10);
  EXPECT_THROW(assign(w, Mask{}, Accum::none(), 1.0f, std::vector<std::int64_t>{3, 10}),
               IndexOutOfBounds);
  EXPECT_THROW(assign(w, Mask{}, Accum::none(), 1.0f, std::vector<std::int64_t>{-1}),
               IndexOutOfBounds);
  EXPECT_THROW(assign(w, Mask{}, Accum::none(), Vector<float>(3), std::vector<std::int64_t>{1, 2}),
               DimensionMismatch);
  EXPECT_THROW(assign(w, Mask{}, Accum::plus(), Vector<float>(9)), DimensionMismatch);
  const Vector<float> m(9);
  EXPECT_THROW(assign(w, Mask::value(m), Accum::none(), 1.0f), DimensionMismatch);
}

TEST(Assign, CudaDeviceThrowsUnsupportedInCpuBuild) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  Vector<float> w(4);
  EXPECT_THROW(assign(w, Mask{}, Accum::none(), 1.0f, Descriptor{}.on(Device::Cuda)), Unsupported);
}

}  // namespace
}  // namespace spindle
