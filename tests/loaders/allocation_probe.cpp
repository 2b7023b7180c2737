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
