// SPDX-License-Identifier: Apache-2.0
// Large host arrays (spindle/detail/host_pages.hpp): the helpers give the same arrays as plain
// vectors whatever the size and alignment, go through the allocation hook, and the pre-faulting
// step really faults the pages in where the kernel supports it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "spindle/debug/allocation.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/error.hpp"

namespace {

using spindle::detail::kLargeHostArrayBytes;

// Sizes on both sides of the threshold, and odd ones whose 2 MB-aligned interior and page edges
// fall anywhere: the helpers must not touch a byte outside the array's own storage.
std::vector<std::size_t> sizes_in_bytes() {
  return {0,
          1,
          4096,
          kLargeHostArrayBytes - 8,
          kLargeHostArrayBytes,
          kLargeHostArrayBytes + 4100,
          3 * kLargeHostArrayBytes + 12345 * 8,
          (std::size_t{40} << 20) + 24};
}

template <class T>
void check_zero_filled_and_fill_variant() {
  for (const std::size_t bytes : sizes_in_bytes()) {
    const std::size_t n = bytes / sizeof(T);
    SCOPED_TRACE(std::to_string(n) + " elements of " + std::to_string(sizeof(T)) + " bytes");
    const std::vector<T> z = spindle::detail::large_workspace<T>(n, "test");
    ASSERT_EQ(z.size(), n);
    for (std::size_t k = 0; k < n; ++k) {
      if (z[k] != T(0)) FAIL() << "element " << k << " is " << z[k] << ", not 0";
    }
    const T fill = static_cast<T>(7.5);
    const std::vector<T> f = spindle::detail::large_workspace<T>(n, fill, "test");
    ASSERT_EQ(f.size(), n);
    for (std::size_t k = 0; k < n; ++k) {
      if (f[k] != fill) FAIL() << "element " << k << " is " << f[k] << ", not " << fill;
    }
  }
}

TEST(HostPages, LargeWorkspacesAreValueInitialisedLikePlainVectors) {
  check_zero_filled_and_fill_variant<std::int32_t>();
  check_zero_filled_and_fill_variant<std::int64_t>();
  check_zero_filled_and_fill_variant<float>();
  check_zero_filled_and_fill_variant<double>();
  check_zero_filled_and_fill_variant<unsigned char>();
}

TEST(HostPages, CopiesAndReservesKeepTheContents) {
  std::mt19937_64 rng(20261129);
  for (const std::size_t bytes : sizes_in_bytes()) {
    const std::size_t n = bytes / sizeof(std::int32_t);
    SCOPED_TRACE(std::to_string(n) + " int32 elements");
    std::vector<std::int32_t> src(n);
    for (auto& v : src) v = static_cast<std::int32_t>(rng());
    const std::vector<std::int32_t> copy = spindle::detail::large_copy(src, "test");
    EXPECT_EQ(copy, src);

    // Growing a vector that already holds data keeps it, in order; a smaller request is a no-op.
    std::vector<std::int32_t> grown(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(n / 2));
    spindle::detail::large_reserve(grown, n + 3, "test");
    EXPECT_GE(grown.capacity(), n + 3);
    ASSERT_EQ(grown.size(), n / 2);
    EXPECT_TRUE(std::equal(grown.begin(), grown.end(), src.begin()));
    const std::int32_t* before = grown.data();
    spindle::detail::large_reserve(grown, n / 4, "test");
    EXPECT_EQ(grown.data(), before);
    grown.insert(grown.end(), src.begin() + static_cast<std::ptrdiff_t>(n / 2), src.end());
    EXPECT_EQ(grown, src);
  }
}

TEST(HostPages, UninitialisedStagingIsWritableOverItsWholeLength) {
  for (const std::size_t bytes : sizes_in_bytes()) {
    const std::size_t n = bytes / sizeof(std::int64_t);
    SCOPED_TRACE(std::to_string(n) + " int64 elements");
    auto p = spindle::detail::large_uninitialised<std::int64_t>(n, "test");
    ASSERT_NE(p, nullptr);  // max(n, 1) elements: never null, also for n = 0
    const std::size_t c = n > 0 ? n : 1;
    for (std::size_t k = 0; k < c; ++k) p[k] = static_cast<std::int64_t>(k) * 3 - 1;
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < c; ++k) sum += p[k] - (static_cast<std::int64_t>(k) * 3 - 1);
    EXPECT_EQ(sum, 0);
  }
}

TEST(HostPages, AllocationsGoThroughTheHookAndFailCleanly) {
  const std::size_t n = (kLargeHostArrayBytes * 2) / sizeof(std::int32_t);
  {
    spindle::debug::ScopedAllocationFailure fail(1);
    EXPECT_THROW((void)spindle::detail::large_workspace<std::int32_t>(n, "large test array"),
                 spindle::OutOfMemory);
  }
  {
    spindle::debug::ScopedAllocationFailure fail(1);
    EXPECT_THROW((void)spindle::detail::large_uninitialised<std::int32_t>(n, "large staging"),
                 spindle::OutOfMemory);
  }
  std::vector<std::int32_t> v(5, 9);
  {
    spindle::debug::ScopedAllocationFailure fail(1);
    EXPECT_THROW(spindle::detail::large_reserve(v, n, "large reserve"), spindle::OutOfMemory);
  }
  EXPECT_EQ(v, std::vector<std::int32_t>(5, 9));  // unchanged by the failed reserve
  try {
    spindle::debug::ScopedAllocationFailure fail(1);
    (void)spindle::detail::large_copy(v, "large copy");
    // 5 elements: below the threshold, but still a checked allocation.
    ADD_FAILURE() << "large_copy did not go through the allocation hook";
  } catch (const spindle::OutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("large copy"), std::string::npos) << e.what();
  }
}

TEST(HostPages, EnabledUnlessTheEnvironmentSaysZero) {
#if defined(__linux__)
  const char* v = std::getenv("SPINDLE_HUGE_PAGES");
  const bool off = v != nullptr && std::strcmp(v, "0") == 0;
  EXPECT_EQ(spindle::detail::host_pages_enabled(), !off);
#else
  EXPECT_FALSE(spindle::detail::host_pages_enabled());
#endif
}

#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

// Which pages of [p, p + bytes) are resident (mincore: exact per page, whatever the mappings
// around them hold). p must be page-aligned.
std::vector<unsigned char> resident_pages(void* p, std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  EXPECT_EQ(mincore(p, bytes, v.data()), 0) << std::strerror(errno);
  for (auto& b : v) b &= 1;
  return v;
}

std::size_t count_resident(const std::vector<unsigned char>& v) {
  return static_cast<std::size_t>(std::count(v.begin(), v.end(), 1));
}

TEST(HostPages, PreparingFaultsTheWholePagesOfTheRangeInAndNothingElse) {
  if (!spindle::detail::host_pages_enabled()) GTEST_SKIP() << "SPINDLE_HUGE_PAGES=0";
  // Does this kernel know MADV_POPULATE_WRITE (5.14+)? Probe on a page of our own.
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  void* probe = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(probe, MAP_FAILED);
  const bool populate_known = madvise(probe, page, MADV_POPULATE_WRITE) == 0;
  munmap(probe, page);
  if (!populate_known) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";

  // A fresh anonymous mapping of our own: nothing resident until it is prepared. The range
  // prepared starts and ends 100 bytes inside its first and last pages, which are not whole
  // pages of the range and must stay untouched (they may hold an allocator's own data).
  const std::size_t bytes = std::size_t{64} << 20;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  // With transparent huge pages set to "always", faulting the second page would bring in a huge
  // page holding the first: the kernel's choice, not a write of ours. Opt the mapping out; the
  // helper opts the range's 2 MB-aligned interior back in.
  (void)madvise(p, bytes, MADV_NOHUGEPAGE);
  const std::size_t before = count_resident(resident_pages(p, bytes));
  errno = 1234;  // left as it was
  spindle::detail::prepare_host_pages(static_cast<char*>(p) + 100, bytes - 200);
  EXPECT_EQ(errno, 1234);
  const std::vector<unsigned char> after = resident_pages(p, bytes);
  // The contents are still zero (populating writes nothing).
  const auto* bytes_p = static_cast<const unsigned char*>(p);
  std::size_t nonzero = 0;
  for (std::size_t k = 0; k < bytes; k += page) nonzero += bytes_p[k] != 0;
  munmap(p, bytes);
  EXPECT_EQ(before, 0u);
  ASSERT_EQ(after.size(), bytes / page);
  EXPECT_EQ(after.front(), 0) << "the first, partial page was touched";
  EXPECT_EQ(after.back(), 0) << "the last, partial page was touched";
  EXPECT_EQ(count_resident(after), after.size() - 2) << "interior pages left out";
  EXPECT_EQ(nonzero, 0u);

  // Below the threshold nothing happens.
  const std::size_t small = kLargeHostArrayBytes / 2;
  void* q = mmap(nullptr, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(q, MAP_FAILED);
  spindle::detail::prepare_host_pages(q, small);
  EXPECT_EQ(count_resident(resident_pages(q, small)), 0u);
  munmap(q, small);
}
#endif

}  // namespace
