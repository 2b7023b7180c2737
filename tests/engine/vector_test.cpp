// SPDX-License-Identifier: Apache-2.0
// Vector's deferred host array: a vector built with a size and a fill value makes its array on
// first host use, and until then behaves exactly like the filled array it stands for (size,
// entries, copies, moves, fill, resize_empty, masks), also under concurrent const readers.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "deferred_host_util.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/mask.hpp"
#include "spindle/vector.hpp"

namespace spindle {
namespace {

using test::host_array_made;

TEST(VectorDeferredHost, SizeAndEntriesAreThoseOfTheFilledArray) {
  Vector<double> v(1000, 2.5);
  EXPECT_FALSE(host_array_made(v));
  EXPECT_EQ(v.size(), 1000);
  EXPECT_TRUE(v.is_full());
  EXPECT_FALSE(host_array_made(v)) << "size() and is_full() need no host array";
  const Vector<double>& c = v;
  for (std::int64_t i : {0, 1, 499, 999}) EXPECT_EQ(c[i], 2.5);
  EXPECT_TRUE(host_array_made(v));
  EXPECT_EQ(v.nvals(), 1000);
  EXPECT_EQ(v.values(), std::vector<double>(1000, 2.5));
}

TEST(VectorDeferredHost, FirstWriteMakesTheArrayWithTheFillAroundIt) {
  Vector<float> v(64, -3.0f);
  v[10] = 7.0f;
  for (std::int64_t i = 0; i < 64; ++i) EXPECT_EQ(v[i], i == 10 ? 7.0f : -3.0f) << i;
  Vector<std::int32_t> w(5, 9);
  w.data()[4] = 1;
  EXPECT_EQ(w.values(), (std::vector<std::int32_t>{9, 9, 9, 9, 1}));
}

TEST(VectorDeferredHost, CopiesStayDeferredAndMovesEmptyTheSource) {
  Vector<float> v(100, 1.5f);
  Vector<float> copy(v);
  EXPECT_FALSE(host_array_made(copy));
  EXPECT_EQ(copy.size(), 100);
  EXPECT_EQ(static_cast<const Vector<float>&>(copy)[99], 1.5f);
  Vector<float> assigned;
  assigned = v;
  EXPECT_EQ(assigned.size(), 100);
  EXPECT_EQ(assigned.values(), std::vector<float>(100, 1.5f));

  Vector<float> moved(std::move(v));
  EXPECT_EQ(moved.size(), 100);
  EXPECT_EQ(v.size(), 0);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_TRUE(v.values().empty());
  Vector<float> target(3, 0.0f);
  target = std::move(moved);
  EXPECT_EQ(target.size(), 100);
  EXPECT_EQ(moved.size(), 0);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(target.values(), std::vector<float>(100, 1.5f));

  // A made array is copied as an array.
  Vector<float> made(4, 2.0f);
  made[1] = 3.0f;
  const Vector<float> made_copy(made);
  EXPECT_EQ(made_copy.values(), (std::vector<float>{2.0f, 3.0f, 2.0f, 2.0f}));
}

TEST(VectorDeferredHost, FillResizeEmptyAndEmptyKeepTheirMeaning) {
  Vector<float> v(10, 1.0f);
  v.fill(4.0f);
  EXPECT_FALSE(host_array_made(v)) << "filling a deferred vector only changes its fill value";
  EXPECT_EQ(v.values(), std::vector<float>(10, 4.0f));
  v.fill(5.0f);  // a made array is filled in place
  EXPECT_EQ(v.values(), std::vector<float>(10, 5.0f));

  v.resize_empty(20);
  EXPECT_EQ(v.size(), 20);
  EXPECT_EQ(v.nvals(), 0);
  v.set(3, 8.0f);
  EXPECT_EQ(v.nvals(), 1);
  EXPECT_TRUE(v.present(3));
  EXPECT_FALSE(v.present(4));
  EXPECT_EQ(v[3], 8.0f);

  auto e = Vector<double>::empty(6);
  EXPECT_FALSE(host_array_made(e));
  EXPECT_EQ(e.size(), 6);
  EXPECT_FALSE(e.is_full());
  EXPECT_EQ(e.nvals(), 0);
  e.set(5, 1.0);
  e.remove(5);
  EXPECT_EQ(e.nvals(), 0);

  Vector<float> zero(0, 1.0f);
  EXPECT_EQ(zero.size(), 0);
  EXPECT_TRUE(zero.values().empty());
  EXPECT_THROW(Vector<float>(-1), InvalidArgument);
}

TEST(VectorDeferredHost, PresenceQueriesNeedNoHostArray) {
  Vector<float> v(10, 1.0f);
  EXPECT_EQ(v.nvals(), 10);
  EXPECT_TRUE(v.present(3));
  EXPECT_FALSE(host_array_made(v));
  auto e = Vector<float>::empty(10);
  EXPECT_EQ(e.nvals(), 0);
  EXPECT_FALSE(e.present(9));
  EXPECT_FALSE(host_array_made(e));
}

TEST(VectorDeferredHost, MaskOverADeferredVectorSelectsByItsFill) {
  Vector<std::int32_t> ones(8, 1), zeros(8, 0);
  const Mask on = Mask::value(ones), off = Mask::value(zeros);
  const Mask off_complement = Mask::value(zeros, true);
  EXPECT_FALSE(host_array_made(ones)) << "building a mask makes no host array";
  const Mask resolved = on.resolved_on_host();  // makes it once, for a host loop
  EXPECT_TRUE(host_array_made(ones));
  for (std::int64_t i = 0; i < 8; ++i) EXPECT_TRUE(resolved.selects(i));
  for (std::int64_t i = 0; i < 8; ++i) {
    EXPECT_TRUE(on.selects(i));
    EXPECT_FALSE(off.selects(i));
    EXPECT_TRUE(off_complement.selects(i));
  }
  const auto absent = Vector<float>::empty(8);
  const Mask structural = Mask::structural(absent);
  for (std::int64_t i = 0; i < 8; ++i) EXPECT_FALSE(structural.selects(i));
}

TEST(VectorDeferredHost, ConcurrentConstReadersMakeTheArrayOnce) {
  for (int round = 0; round < 20; ++round) {
    const Vector<float> v(1 << 16, 0.75f);
    std::vector<double> seen(8, 0.0);
    std::vector<std::thread> readers;
    for (int t = 0; t < 8; ++t) {
      readers.emplace_back([&, t] {
        double s = v[t * 1000];
        s += v.data()[(1 << 16) - 1 - t];
        s += static_cast<double>(v.size());
        seen[t] = s;
      });
    }
    for (auto& r : readers) r.join();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(seen[t], 1.5 + (1 << 16)) << "round " << round;
    EXPECT_EQ(v.values().size(), std::size_t{1} << 16);
  }
}

// Making the array is an engine allocation like any other: it goes through the allocation hook
// (OutOfMemory naming it), and a failed attempt leaves the vector deferred and whole.
TEST(VectorDeferredHost, MakingTheArrayGoesThroughTheAllocationHook) {
  const Vector<float> v(1000, 0.5f);
  {
    const debug::ScopedAllocationFailure fail(1, debug::AllocationFilter::Host);
    try {
      (void)v[3];
      ADD_FAILURE() << "the injected failure did not fire";
    } catch (const OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("vector host array"), std::string::npos) << e.what();
    }
  }
  EXPECT_FALSE(host_array_made(v));
  EXPECT_EQ(v.size(), 1000);
  EXPECT_EQ(v.values(), std::vector<float>(1000, 0.5f));

  Vector<float> w(10, 1.0f);
  {
    const debug::ScopedAllocationFailure fail(1, debug::AllocationFilter::Host);
    EXPECT_THROW(w[2] = 4.0f, OutOfMemory);
  }
  EXPECT_FALSE(host_array_made(w)) << "a failed write leaves the vector as it was";
  EXPECT_EQ(w.values(), std::vector<float>(10, 1.0f));
}

TEST(VectorDeferredHost, ResizeEmptyThatFailsToAllocateLeavesTheVectorAsItWas) {
  Vector<float> v(5, 2.0f);
  v.remove(1);
  {
    const debug::ScopedAllocationFailure fail(1, debug::AllocationFilter::Host);
    try {
      v.resize_empty(40);
      ADD_FAILURE() << "the injected failure did not fire";
    } catch (const OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("vector presence bitmap"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_EQ(v.size(), 5);
  EXPECT_EQ(v.nvals(), 4);
  EXPECT_FALSE(v.present(1));
  EXPECT_EQ(v[0], 2.0f);
  EXPECT_EQ(v[4], 2.0f);
  v.resize_empty(40);  // and without the failure it resizes
  EXPECT_EQ(v.size(), 40);
  EXPECT_EQ(v.nvals(), 0);
}

}  // namespace
}  // namespace spindle
