// SPDX-License-Identifier: Apache-2.0
// DenseMatrix's deferred host array (spindle/detail/deferred_array.hpp): a matrix built with a
// shape and a fill value makes its array on first host use, and until then behaves exactly like
// the filled matrix it stands for (shape, entries, copies, moves), also under concurrent const
// readers; making it goes through the allocation hook.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "deferred_host_util.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/dense.hpp"

namespace spindle {
namespace {

using test::host_array_made;

TEST(DenseMatrixDeferredHost, ShapeAndEntriesAreThoseOfTheFilledMatrix) {
  const DenseMatrix<double> m(300, 7, -1.25);
  EXPECT_FALSE(host_array_made(m));
  EXPECT_EQ(m.rows(), 300);
  EXPECT_EQ(m.cols(), 7);
  EXPECT_EQ(m.size(), 2100);
  EXPECT_FALSE(host_array_made(m)) << "the shape needs no host array";
  EXPECT_EQ(m(299, 6), -1.25);
  EXPECT_TRUE(host_array_made(m));
  EXPECT_EQ(m.storage(), std::vector<double>(2100, -1.25));
  EXPECT_EQ(m.row(5)[3], -1.25);

  const DenseMatrix<float> zeros(4, 5);  // the default fill is T{}
  EXPECT_EQ(zeros.storage(), std::vector<float>(20, 0.0f));
}

TEST(DenseMatrixDeferredHost, FirstWriteMakesTheArrayWithTheFillAroundIt) {
  DenseMatrix<float> m(3, 4, 2.0f);
  m(1, 2) = 9.0f;
  for (std::int64_t i = 0; i < 3; ++i) {
    for (std::int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(m(i, j), i == 1 && j == 2 ? 9.0f : 2.0f) << i << "," << j;
    }
  }
  DenseMatrix<std::int32_t> r(2, 3, 7);
  r.row(1)[0] = 1;
  r.data()[5] = 5;
  EXPECT_EQ(r.storage(), (std::vector<std::int32_t>{7, 7, 7, 1, 7, 5}));
  DenseMatrix<float> s(2, 2, 1.0f);
  s.storage().assign(4, 3.0f);
  EXPECT_EQ(static_cast<const DenseMatrix<float>&>(s)(1, 1), 3.0f);
}

TEST(DenseMatrixDeferredHost, CopiesStayDeferredAndMovesEmptyTheSource) {
  DenseMatrix<float> m(50, 3, 0.5f);
  DenseMatrix<float> copy(m);
  EXPECT_FALSE(host_array_made(copy));
  EXPECT_FALSE(host_array_made(m));
  EXPECT_EQ(copy.rows(), 50);
  EXPECT_EQ(copy.storage(), std::vector<float>(150, 0.5f));
  DenseMatrix<float> assigned;
  assigned = m;
  EXPECT_FALSE(host_array_made(assigned));
  EXPECT_EQ(assigned.size(), 150);

  DenseMatrix<float> moved(std::move(m));
  EXPECT_EQ(moved.rows(), 50);
  EXPECT_EQ(moved.cols(), 3);
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(m.rows(), 0);
  EXPECT_EQ(m.cols(), 0);
  EXPECT_EQ(m.size(), 0);
  EXPECT_TRUE(m.storage().empty());
  DenseMatrix<float> target(2, 2, 4.0f);
  target = std::move(moved);
  EXPECT_EQ(target.rows(), 50);
  EXPECT_EQ(moved.rows(), 0);
  EXPECT_EQ(moved.size(), 0);
  // NOLINTEND(bugprone-use-after-move)
  EXPECT_EQ(target.storage(), std::vector<float>(150, 0.5f));

  // A made array is copied as an array.
  DenseMatrix<float> made(2, 2, 1.0f);
  made(0, 1) = 6.0f;
  const DenseMatrix<float> made_copy(made);
  EXPECT_TRUE(host_array_made(made_copy));
  EXPECT_EQ(made_copy.storage(), (std::vector<float>{1.0f, 6.0f, 1.0f, 1.0f}));
}

TEST(DenseMatrixDeferredHost, AdoptedDataIsMadeAndItsShapeChecked) {
  const DenseMatrix<float> a(2, 3, std::vector<float>{1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(host_array_made(a));
  EXPECT_EQ(a(1, 0), 4.0f);
  EXPECT_THROW(DenseMatrix<float>(2, 3, std::vector<float>(5)), DimensionMismatch);
  EXPECT_THROW(DenseMatrix<float>(-1, 3), InvalidArgument);
  EXPECT_THROW(DenseMatrix<float>(std::int64_t{1} << 40, std::int64_t{1} << 40), InvalidArgument);
  const DenseMatrix<float> empty(0, 5, 1.0f);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.storage().empty());
}

TEST(DenseMatrixDeferredHost, MakingTheArrayGoesThroughTheAllocationHook) {
  const DenseMatrix<float> m(100, 10, 3.0f);
  {
    const debug::ScopedAllocationFailure fail(1, debug::AllocationFilter::Host);
    try {
      (void)m(0, 0);
      ADD_FAILURE() << "the injected failure did not fire";
    } catch (const OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("dense matrix host array"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(host_array_made(m)) << "a failed attempt leaves the matrix deferred";
  EXPECT_EQ(m.storage(), std::vector<float>(1000, 3.0f));
}

TEST(DenseMatrixDeferredHost, ConcurrentConstReadersMakeTheArrayOnce) {
  for (int round = 0; round < 20; ++round) {
    const DenseMatrix<float> m(256, 256, 0.75f);
    std::vector<double> seen(8, 0.0);
    std::vector<std::thread> readers;
    for (int t = 0; t < 8; ++t) {
      readers.emplace_back([&, t] {
        double s = m(t, 255 - t);
        s += m.row(255 - t)[t];
        s += m.data()[t * 1000];
        seen[t] = s;
      });
    }
    for (auto& r : readers) r.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(seen[t], 2.25) << "round " << round;
    EXPECT_EQ(m.storage().size(), std::size_t{256} * 256);
  }
}

}  // namespace
}  // namespace spindle
