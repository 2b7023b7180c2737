// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file allocation.hpp
/// @brief Allocation accounting for the engine: the check every engine allocation goes through,
/// the OutOfMemory message format, and a debug hook that makes the n-th allocation fail.
///
/// Every allocation the engine makes on behalf of an operation (host workspaces, device buffers,
/// graph building) calls `detail::check_allocation(bytes, where, space)` first. With the debug
/// hook off (the normal state) that is one relaxed atomic load and a predicted branch. Tests arm
/// the hook with `debug::fail_nth_allocation(n)` to prove that every operation cleans up, throws
/// OutOfMemory and leaves its inputs untouched when the n-th allocation fails.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "spindle/error.hpp"

#if defined(__GNUC__) || defined(__clang__)
#define SPINDLE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define SPINDLE_UNLIKELY(x) (x)
#endif

namespace spindle {

namespace detail {

/// Where an allocation lives; it selects the wording of the OutOfMemory message.
enum class MemorySpace : std::uint8_t { Host, Device };

/// Set while the debug hook is armed; read on every checked allocation (relaxed).
extern std::atomic<bool> g_allocation_hook_armed;

/// Slow path of check_allocation (only reached while the hook is armed).
void allocation_hook_slow_path(std::size_t bytes, const char* where, MemorySpace space);

/// Call before allocating `bytes` for `where` (a short name such as "mxv workspace" or
/// "DeviceBuffer"). Throws OutOfMemory when the debug hook decides this allocation fails;
/// otherwise does nothing. Thread-safe.
inline void check_allocation(std::size_t bytes, const char* where,
                             MemorySpace space = MemorySpace::Host) {
  if (SPINDLE_UNLIKELY(g_allocation_hook_armed.load(std::memory_order_relaxed))) {
    allocation_hook_slow_path(bytes, where, space);
  }
}

/// "1.5 KB", "21.3 GB": decimal units with one decimal, bytes below 1 KB ("512 B").
std::string format_bytes(std::uint64_t bytes);

/// Bytes of physical memory the host reports as available now (sysconf pages; an estimate:
/// the kernel can usually reclaim more from caches). 0 when unknown.
std::uint64_t host_available_bytes() noexcept;

/// The OutOfMemory message: "<where>: needs 21.3 GB, 9.8 GB free on the GPU" (space Device) or
/// "... free on the host" (space Host). `free_bytes` is what the caller measured (cudaMemGetInfo
/// for the GPU; host_available_bytes() for the host).
std::string out_of_memory_message(std::uint64_t need, std::uint64_t free_bytes, const char* where,
                                  MemorySpace space);

/// Throws OutOfMemory for a host allocation of `need` bytes, measuring the free memory itself.
[[noreturn]] void throw_host_out_of_memory(std::uint64_t need, const char* where);

/// Bytes of n Ts, saturating at 2^64 - 1 (an impossible request still gets a message).
template <class T>
std::uint64_t bytes_of(std::size_t n) noexcept {
  const std::size_t max_n = static_cast<std::size_t>(-1) / sizeof(T);
  return n > max_n ? static_cast<std::uint64_t>(-1) : static_cast<std::uint64_t>(n) * sizeof(T);
}

/// Bytes of physical memory plus swap of the host (sysinfo); 0 when unknown.
std::uint64_t host_total_bytes() noexcept;

/// Requests at least this large are compared with host_total_bytes() before allocating.
inline constexpr std::uint64_t kHostCapacityCheckBytes = std::uint64_t{1} << 30;

/// Throws OutOfMemory when `bytes` exceeds the host's physical memory plus swap: such a request
/// can never be met, and with memory overcommit the allocation itself might "succeed" and leave
/// the process to the OOM killer when the pages are touched.
void check_host_capacity(std::uint64_t bytes, const char* where);

/// Runs `allocate()` (which allocates about `bytes` on the host) after check_allocation and,
/// for large requests, check_host_capacity; turns std::bad_alloc / std::length_error into
/// OutOfMemory with the numbers.
template <class F>
decltype(auto) host_allocation(std::uint64_t bytes, const char* where, F&& allocate) {
  check_allocation(static_cast<std::size_t>(bytes), where, MemorySpace::Host);
  if (bytes >= kHostCapacityCheckBytes) check_host_capacity(bytes, where);
  try {
    return allocate();
  } catch (const std::bad_alloc&) {
    throw_host_out_of_memory(bytes, where);
  } catch (const std::length_error&) {
    throw_host_out_of_memory(bytes, where);
  }
}

/// A host workspace of n value-initialised Ts, allocated through host_allocation().
/// @throws OutOfMemory naming `where`, the bytes needed and the bytes free.
template <class T>
std::vector<T> workspace(std::size_t n, const char* where) {
  return host_allocation(bytes_of<T>(n), where, [&] { return std::vector<T>(n); });
}

/// A host workspace of n copies of `fill`; see workspace(). @throws OutOfMemory.
template <class T>
std::vector<T> workspace(std::size_t n, const T& fill, const char* where) {
  return host_allocation(bytes_of<T>(n), where, [&] { return std::vector<T>(n, fill); });
}

/// v.reserve(n) through host_allocation(); v is unchanged when it throws. @throws OutOfMemory.
template <class T>
void checked_reserve(std::vector<T>& v, std::size_t n, const char* where) {
  if (n <= v.capacity()) return;
  host_allocation(bytes_of<T>(n), where, [&] { v.reserve(n); });
}

/// v.resize(n) through host_allocation() when it must grow the storage; v is unchanged when it
/// throws (std::vector's strong guarantee). @throws OutOfMemory.
template <class T>
void checked_resize(std::vector<T>& v, std::size_t n, const char* where) {
  if (n <= v.capacity()) {
    v.resize(n);
    return;
  }
  host_allocation(bytes_of<T>(n), where, [&] { v.resize(n); });
}

}  // namespace detail

/// Debug hooks for tests and fault-injection runs. Not for production use: arming them makes
/// allocations fail on purpose.
namespace debug {

/// Which allocations the hook counts.
enum class AllocationFilter : std::uint8_t { Any, Host, Device };

/// Arms the hook: the n-th checked allocation from now (1-based; counting only allocations that
/// match `filter`) throws OutOfMemory whose message ends in "(injected allocation failure)".
/// With `sticky`, every matching allocation after the n-th fails too. n <= 0 disarms.
/// Thread-safe: exactly one allocation is the n-th, whichever thread makes it.
void fail_nth_allocation(std::int64_t n, AllocationFilter filter = AllocationFilter::Any,
                         bool sticky = false);

/// Lets n checked allocations succeed and makes the next one fail: fail_nth_allocation(n + 1).
void fail_allocation_after(std::int64_t n, AllocationFilter filter = AllocationFilter::Any,
                           bool sticky = false);

/// Arms the hook in counting mode: no allocation fails, allocation_count() counts them.
void count_allocations(AllocationFilter filter = AllocationFilter::Any);

/// Disarms the hook (check_allocation is free again) and clears the counters.
void reset_allocation_hook();

/// Matching checked allocations seen since the hook was last armed.
std::int64_t allocation_count();

/// Whether an armed failure has fired since the hook was last armed.
bool allocation_failure_fired();

/// Arms fail_nth_allocation for a scope and disarms it on exit (also when the scope throws).
class ScopedAllocationFailure {
 public:
  explicit ScopedAllocationFailure(std::int64_t n, AllocationFilter filter = AllocationFilter::Any,
                                   bool sticky = false) {
    fail_nth_allocation(n, filter, sticky);
  }
  ~ScopedAllocationFailure() { reset_allocation_hook(); }
  ScopedAllocationFailure(const ScopedAllocationFailure&) = delete;
  ScopedAllocationFailure& operator=(const ScopedAllocationFailure&) = delete;
};

}  // namespace debug
}  // namespace spindle
