// SPDX-License-Identifier: Apache-2.0
// Replaces the global operator new of the loader test binary to record the largest single
// allocation while an AllocationProbe is armed: proves that sizes read from a file never
// size an allocation before they are checked (LAGraph#403).
#include <cstdlib>
#include <new>

#include "loader_test_util.hpp"

namespace spindle_test {
std::atomic<bool> AllocationProbe::armed{false};
std::atomic<std::size_t> AllocationProbe::largest{0};
}  // namespace spindle_test

// Sanitizer runtimes own operator new/delete (and check that they pair up); replacing them there
// would fight the runtime, so the probe is off in sanitizer builds (the tests still run; the
// sanitizer itself then reports oversized allocations).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SPINDLE_ALLOC_PROBE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SPINDLE_ALLOC_PROBE 0
#endif
#endif
#ifndef SPINDLE_ALLOC_PROBE
#define SPINDLE_ALLOC_PROBE 1
#endif

#if SPINDLE_ALLOC_PROBE
namespace {
void record(std::size_t n) {
  using spindle_test::AllocationProbe;
  if (!AllocationProbe::armed.load(std::memory_order_relaxed)) return;
  std::size_t cur = AllocationProbe::largest.load(std::memory_order_relaxed);
  while (n > cur && !AllocationProbe::largest.compare_exchange_weak(cur, n)) {
  }
}
void* allocate(std::size_t n) {
  record(n);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
#endif  // SPINDLE_ALLOC_PROBE
