// SPDX-License-Identifier: Apache-2.0
// The allocation check every engine allocation calls, the OutOfMemory wording, and the debug
// hook that makes the n-th allocation fail (see spindle/debug/allocation.hpp).
#include <sys/sysinfo.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>

#include "spindle/debug/allocation.hpp"

namespace spindle {
namespace detail {

std::atomic<bool> g_allocation_hook_armed{false};

namespace {

// The hook's state. `remaining` counts down to the allocation that fails; reading and writing
// it with atomics keeps the fast path lock-free, while arming / disarming (rare, test-only) take
// the mutex so that filter and stickiness change together with the countdown.
struct HookState {
  std::mutex mutex;
  std::atomic<std::int64_t> remaining{0};
  std::atomic<std::int64_t> seen{0};
  std::atomic<bool> fired{false};
  std::atomic<bool> counting_only{false};
  std::atomic<bool> sticky{false};
  std::atomic<debug::AllocationFilter> filter{debug::AllocationFilter::Any};
};

HookState& state() {
  static HookState s;
  return s;
}

bool matches(debug::AllocationFilter f, MemorySpace space) {
  switch (f) {
    case debug::AllocationFilter::Any:
      return true;
    case debug::AllocationFilter::Host:
      return space == MemorySpace::Host;
    case debug::AllocationFilter::Device:
      return space == MemorySpace::Device;
  }
  return true;
}

const char* space_name(MemorySpace space) {
  return space == MemorySpace::Device ? "the GPU" : "the host";
}

}  // namespace

void allocation_hook_slow_path(std::size_t bytes, const char* where, MemorySpace space) {
  HookState& s = state();
  if (!matches(s.filter.load(std::memory_order_acquire), space)) return;
  const std::int64_t index = s.seen.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (s.counting_only.load(std::memory_order_acquire)) return;
  const std::int64_t before = s.remaining.fetch_sub(1, std::memory_order_acq_rel);
  const bool fail = before == 1 || (before < 1 && s.sticky.load(std::memory_order_acquire));
  if (!fail) return;
  s.fired.store(true, std::memory_order_release);
  const std::uint64_t free_bytes = space == MemorySpace::Host ? host_available_bytes() : 0;
  std::string msg = std::string(where ? where : "allocation") + ": needs " + format_bytes(bytes);
  if (space == MemorySpace::Host) {
    msg += ", " + format_bytes(free_bytes) + " free on " + space_name(space);
  } else {
    msg += " on " + std::string(space_name(space));
  }
  msg += " (injected allocation failure #" + std::to_string(index) + ")";
  throw OutOfMemory(msg);
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 1000) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 999.95 && u < 6) {
    v /= 1000.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::uint64_t host_available_bytes() noexcept {
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::uint64_t host_total_bytes() noexcept {
  struct sysinfo info {};
  if (sysinfo(&info) != 0) return 0;
  const std::uint64_t unit = info.mem_unit ? info.mem_unit : 1;
  return (static_cast<std::uint64_t>(info.totalram) + info.totalswap) * unit;
}

void check_host_capacity(std::uint64_t bytes, const char* where) {
  const std::uint64_t total = host_total_bytes();
  if (total != 0 && bytes > total) throw_host_out_of_memory(bytes, where);
}

std::string out_of_memory_message(std::uint64_t need, std::uint64_t free_bytes, const char* where,
                                  MemorySpace space) {
  return std::string(where ? where : "allocation") + ": needs " + format_bytes(need) + ", " +
         format_bytes(free_bytes) + " free on " + space_name(space);
}

void throw_host_out_of_memory(std::uint64_t need, const char* where) {
  throw OutOfMemory(out_of_memory_message(need, host_available_bytes(), where, MemorySpace::Host));
}

}  // namespace detail

namespace debug {

namespace {
void arm(std::int64_t n, AllocationFilter filter, bool sticky, bool counting) {
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  detail::g_allocation_hook_armed.store(false, std::memory_order_release);
  s.seen.store(0, std::memory_order_relaxed);
  s.fired.store(false, std::memory_order_relaxed);
  s.remaining.store(n, std::memory_order_relaxed);
  s.sticky.store(sticky, std::memory_order_relaxed);
  s.counting_only.store(counting, std::memory_order_relaxed);
  s.filter.store(filter, std::memory_order_release);
  detail::g_allocation_hook_armed.store(counting || n > 0, std::memory_order_release);
}
}  // namespace

void fail_nth_allocation(std::int64_t n, AllocationFilter filter, bool sticky) {
  arm(n, filter, sticky, false);
}

void fail_allocation_after(std::int64_t n, AllocationFilter filter, bool sticky) {
  arm(n < 0 ? 0 : n + 1, filter, sticky, false);
}

void count_allocations(AllocationFilter filter) { arm(0, filter, false, true); }

void reset_allocation_hook() {
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  detail::g_allocation_hook_armed.store(false, std::memory_order_release);
  s.remaining.store(0, std::memory_order_relaxed);
  s.counting_only.store(false, std::memory_order_relaxed);
  s.sticky.store(false, std::memory_order_relaxed);
}

std::int64_t allocation_count() { return detail::state().seen.load(std::memory_order_acquire); }

bool allocation_failure_fired() { return detail::state().fired.load(std::memory_order_acquire); }

}  // namespace debug
}  // namespace spindle
