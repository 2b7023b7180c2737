// SPDX-License-Identifier: Apache-2.0
// The allocation-failure injection hook itself: which allocation fails, that exactly one fails
// under contention, filters, sticky mode, counting mode, and the OutOfMemory message format.
#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "spindle/debug/allocation.hpp"

namespace spindle {
namespace {

using detail::check_allocation;
using detail::MemorySpace;

// Resets the hook even when an assertion fails mid-test, so later tests start clean.
class AllocHook : public ::testing::Test {
 protected:
  void TearDown() override { debug::reset_allocation_hook(); }
};

// Calls check_allocation k times and returns the 1-based index of the one that threw (0: none).
int first_failing_of(int k, MemorySpace space = MemorySpace::Host) {
  int failed = 0;
  for (int i = 1; i <= k; ++i) {
    try {
      check_allocation(64, "test", space);
    } catch (const OutOfMemory&) {
      if (failed == 0) failed = i;
    }
  }
  return failed;
}

TEST_F(AllocHook, DisarmedHookNeverThrows) {
  debug::reset_allocation_hook();
  EXPECT_EQ(first_failing_of(1000), 0);
  EXPECT_FALSE(debug::allocation_failure_fired());
}

TEST_F(AllocHook, NthAllocationFailsExactlyOnceForEveryN) {
  for (int n = 1; n <= 20; ++n) {
    debug::fail_nth_allocation(n);
    int failures = 0, failed_at = 0;
    for (int i = 1; i <= 40; ++i) {
      try {
        check_allocation(8, "test");
      } catch (const OutOfMemory&) {
        ++failures;
        failed_at = i;
      }
    }
    EXPECT_EQ(failures, 1) << "n = " << n;
    EXPECT_EQ(failed_at, n);
    EXPECT_TRUE(debug::allocation_failure_fired());
    EXPECT_EQ(debug::allocation_count(), 40);
  }
}

TEST_F(AllocHook, FailAllocationAfterLetsNSucceed) {
  debug::fail_allocation_after(3);
  EXPECT_EQ(first_failing_of(10), 4);
  debug::fail_allocation_after(0);
  EXPECT_EQ(first_failing_of(10), 1);
}

TEST_F(AllocHook, NonPositiveNDisarms) {
  debug::fail_nth_allocation(0);
  EXPECT_EQ(first_failing_of(10), 0);
  debug::fail_nth_allocation(-5);
  EXPECT_EQ(first_failing_of(10), 0);
}

TEST_F(AllocHook, StickyModeFailsEveryAllocationFromTheNth) {
  debug::fail_nth_allocation(3, debug::AllocationFilter::Any, /*sticky=*/true);
  std::vector<bool> failed;
  for (int i = 1; i <= 8; ++i) {
    bool f = false;
    try {
      check_allocation(8, "test");
    } catch (const OutOfMemory&) {
      f = true;
    }
    failed.push_back(f);
  }
  EXPECT_EQ(failed, (std::vector<bool>{false, false, true, true, true, true, true, true}));
}

TEST_F(AllocHook, FilterCountsOnlyMatchingSpace) {
  debug::fail_nth_allocation(2, debug::AllocationFilter::Device);
  // Host allocations neither count nor fail.
  EXPECT_EQ(first_failing_of(10, MemorySpace::Host), 0);
  EXPECT_EQ(debug::allocation_count(), 0);
  EXPECT_EQ(first_failing_of(10, MemorySpace::Device), 2);
  debug::fail_nth_allocation(1, debug::AllocationFilter::Host);
  EXPECT_EQ(first_failing_of(5, MemorySpace::Device), 0);
  EXPECT_EQ(first_failing_of(5, MemorySpace::Host), 1);
}

TEST_F(AllocHook, CountingModeCountsWithoutFailing) {
  debug::count_allocations();
  EXPECT_EQ(first_failing_of(17), 0);
  EXPECT_EQ(debug::allocation_count(), 17);
  debug::reset_allocation_hook();
  first_failing_of(5);
  EXPECT_EQ(debug::allocation_count(), 17) << "a disarmed hook must not count (zero cost)";
}

TEST_F(AllocHook, ExactlyOneFailureUnderConcurrentAllocations) {
  constexpr int kThreads = 8, kPerThread = 5000;
  for (int n : {1, 777, 20000, 39999}) {
    debug::fail_nth_allocation(n);
    std::atomic<int> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t) {
      pool.emplace_back([&] {
        for (int i = 0; i < kPerThread; ++i) {
          try {
            check_allocation(16, "concurrent");
          } catch (const OutOfMemory&) {
            failures.fetch_add(1);
          }
        }
      });
    }
    for (auto& th : pool) th.join();
    EXPECT_EQ(failures.load(), 1) << "n = " << n;
    EXPECT_EQ(debug::allocation_count(), kThreads * kPerThread);
  }
}

TEST_F(AllocHook, ScopedFailureDisarmsOnExitEvenWhenThrown) {
  try {
    debug::ScopedAllocationFailure guard(1);
    check_allocation(8, "scoped");
    FAIL() << "the first allocation should have failed";
  } catch (const OutOfMemory&) {
  }
  EXPECT_EQ(first_failing_of(10), 0);
}

TEST_F(AllocHook, InjectedFailureIsASpindleErrorNamingSiteSizeAndSpace) {
  debug::fail_nth_allocation(1);
  try {
    check_allocation(21'300'000'000ULL, "mxv workspace", MemorySpace::Host);
    FAIL();
  } catch (const Error& e) {  // catchable as the base class
    const std::string m = e.what();
    EXPECT_TRUE(dynamic_cast<const OutOfMemory*>(&e) != nullptr);
    EXPECT_TRUE(std::regex_search(
        m, std::regex(R"(^mxv workspace: needs 21\.3 GB, [0-9.]+ [KMGTP]?B free on the host)")))
        << m;
    EXPECT_NE(m.find("injected allocation failure #1"), std::string::npos) << m;
  }
  debug::fail_nth_allocation(1);
  try {
    check_allocation(1500, "DeviceBuffer", MemorySpace::Device);
    FAIL();
  } catch (const OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("DeviceBuffer: needs 1.5 KB on the GPU"),
              std::string::npos)
        << e.what();
  }
}

TEST(OutOfMemoryMessage, FormatBytesUsesDecimalUnitsWithOneDecimal) {
  // Oracle: the unit ladder written out by hand.
  EXPECT_EQ(detail::format_bytes(0), "0 B");
  EXPECT_EQ(detail::format_bytes(999), "999 B");
  EXPECT_EQ(detail::format_bytes(1000), "1.0 KB");
  EXPECT_EQ(detail::format_bytes(1500), "1.5 KB");
  EXPECT_EQ(detail::format_bytes(999'949), "999.9 KB");
  EXPECT_EQ(detail::format_bytes(999'950), "1.0 MB");  // rounds up into the next unit
  EXPECT_EQ(detail::format_bytes(21'300'000'000ULL), "21.3 GB");
  EXPECT_EQ(detail::format_bytes(9'800'000'000ULL), "9.8 GB");
  EXPECT_EQ(detail::format_bytes(18446744073709551615ULL), "18.4 EB");
}

TEST(OutOfMemoryMessage, CarriesNeededAndFreeBytesForGpuAndHost) {
  EXPECT_EQ(detail::out_of_memory_message(21'300'000'000ULL, 9'800'000'000ULL, "mxm output",
                                          MemorySpace::Device),
            "mxm output: needs 21.3 GB, 9.8 GB free on the GPU");
  EXPECT_EQ(detail::out_of_memory_message(2'000'000, 1'000, "build_graph", MemorySpace::Host),
            "build_graph: needs 2.0 MB, 1.0 KB free on the host");
}

TEST(OutOfMemoryMessage, HostAvailableBytesIsPlausible) {
  const std::uint64_t avail = detail::host_available_bytes();
  EXPECT_GT(avail, 1ULL << 20) << "sysconf reports less than 1 MB available";
  EXPECT_LT(avail, 1ULL << 50);
}

TEST(Workspace, ImpossibleSizeThrowsOutOfMemoryWithNumbersNotBadAlloc) {
  // More elements than any address space holds: std::vector would throw length_error /
  // bad_alloc; the helper must turn it into OutOfMemory naming the site.
  const std::size_t huge = (std::size_t{1} << 62);
  try {
    auto w = detail::workspace<double>(huge, "huge workspace");
    FAIL() << "allocated " << w.size();
  } catch (const OutOfMemory& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("huge workspace: needs "), std::string::npos) << m;
    EXPECT_NE(m.find("free on the host"), std::string::npos) << m;
  }
}

TEST(Workspace, RequestLargerThanHostMemoryPlusSwapIsRefusedBeforeAllocating) {
  // With overcommit such a request might "succeed" and be OOM-killed later; under ASan it would
  // abort. It must be an OutOfMemory with the numbers, before any allocation.
  const std::uint64_t total = detail::host_total_bytes();
  ASSERT_GT(total, 0u);
  const std::size_t n = static_cast<std::size_t>(total / sizeof(double)) * 2;
  try {
    auto w = detail::workspace<double>(n, "oversized workspace");
    FAIL() << "allocated " << w.size() << " doubles";
  } catch (const OutOfMemory& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("oversized workspace: needs " + detail::format_bytes(n * sizeof(double))),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("free on the host"), std::string::npos) << m;
  }
}

TEST_F(AllocHook, WorkspaceGoesThroughTheHookAndLeavesTargetUntouched) {
  std::vector<int> v{1, 2, 3};
  debug::fail_nth_allocation(1);
  EXPECT_THROW(detail::checked_resize(v, 1000, "grow"), OutOfMemory);
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3}));
  debug::fail_nth_allocation(1);
  EXPECT_THROW((void)detail::workspace<float>(10, "w"), OutOfMemory);
  debug::reset_allocation_hook();
  auto w = detail::workspace<float>(10, "w");
  EXPECT_EQ(w, std::vector<float>(10, 0.0f));
  detail::checked_resize(v, 5, "grow");
  EXPECT_EQ(v, (std::vector<int>{1, 2, 3, 0, 0}));
}

}  // namespace
}  // namespace spindle
