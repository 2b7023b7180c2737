// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file host_pages.hpp
/// @brief Large host arrays (graph arrays, transposes, loader buffers) made without a
/// single-threaded page-fault storm.
///
/// A fresh std::vector<T>(n) of hundreds of MB spends most of its time in the kernel: glibc maps
/// it fresh, and the zero fill faults its 4 KB pages one at a time on one thread (R-MAT 22's
/// transposed columns, 268 MB: about 130 ms of a 230 ms transpose on a 16-core host). Arrays of
/// kLargeHostArrayBytes or more made through these helpers instead
///   1. ask for transparent huge pages over their 2 MB-aligned interior (madvise MADV_HUGEPAGE;
///      a hint the kernel may ignore: THP "never", or no huge page free), and
///   2. fault their pages in on all OpenMP threads before they are first written
///      (madvise MADV_POPULATE_WRITE, Linux 5.14+; no user-space write, contents unchanged).
/// Either step that the system does not support (the kernel, or a sandbox refusing it) is
/// skipped from then on, silently; the array is the same either way. Off Linux the helpers are
/// plain allocations.
///
/// SPINDLE_HUGE_PAGES=0 (read once per process) turns both steps off, for hosts where huge pages
/// are unwelcome (memory accounting, latency-sensitive neighbours).

#include <cstddef>
#include <memory>
#include <vector>

#include "spindle/debug/allocation.hpp"

namespace spindle::detail {

/// Arrays smaller than this are left to the allocator as they are. Four 2 MB pages: below that
/// the huge-page interior is small and the faults few (a 4 MB array faults in about 1 ms on one
/// thread), while the arrays that cost (a graph's columns, 16 MB per million vertices of int32
/// degrees or offsets) are all far above it.
inline constexpr std::size_t kLargeHostArrayBytes = std::size_t{8} << 20;

/// Whether prepare_host_pages does anything in this process (Linux, SPINDLE_HUGE_PAGES not 0).
bool host_pages_enabled() noexcept;

/// Steps 1 and 2 above over [p, p + bytes), which must be memory the caller has allocated and not
/// yet written (written memory is fine too; the step is then wasted work). Only whole pages
/// inside the range are touched. Does nothing below kLargeHostArrayBytes. Never throws and leaves
/// errno as it was; safe to call from any thread (it opens an OpenMP parallel region of its own,
/// except inside one, where the calling thread does all of it).
///
/// The huge-page hint stays on the range after the array is freed: where glibc serves a large
/// array from its heap instead of a mapping of its own (arrays below its dynamic mmap threshold,
/// at most 32 MB), later small allocations there may sit on huge pages too.
void prepare_host_pages(void* p, std::size_t bytes) noexcept;

/// n copies of `fill`, like workspace(): allocated through host_allocation (OutOfMemory naming
/// `where`), with the pages prepared first when the array is large.
template <class T>
std::vector<T> large_workspace(std::size_t n, const T& fill, const char* where) {
  return host_allocation(bytes_of<T>(n), where, [&] {
    std::vector<T> v;
    v.reserve(n);
    prepare_host_pages(v.data(), n * sizeof(T));
    v.resize(n, fill);
    return v;
  });
}

/// n value-initialised Ts; see the overload above.
template <class T>
std::vector<T> large_workspace(std::size_t n, const char* where) {
  return large_workspace<T>(n, T{}, where);
}

/// v.reserve(n) like checked_reserve(), with the new storage's pages prepared when it is large.
template <class T>
void large_reserve(std::vector<T>& v, std::size_t n, const char* where) {
  if (n <= v.capacity()) return;
  host_allocation(bytes_of<T>(n), where, [&] {
    std::vector<T> fresh;
    fresh.reserve(n);
    prepare_host_pages(fresh.data(), n * sizeof(T));
    fresh.insert(fresh.end(), v.begin(), v.end());
    v.swap(fresh);
  });
}

/// A copy of `src` in fresh storage, its pages prepared when large (a plain vector copy faults
/// them on the copying thread). @throws OutOfMemory naming `where`.
template <class T>
std::vector<T> large_copy(const std::vector<T>& src, const char* where) {
  std::vector<T> v;
  large_reserve(v, src.size(), where);
  v.assign(src.begin(), src.end());
  return v;
}

/// max(n, 1) default-initialised Ts (no zero fill: for staging whose every slot is written before
/// it is read), with the pages prepared when large. @throws OutOfMemory naming `where`.
template <class T>
std::unique_ptr<T[]> large_uninitialised(std::size_t n, const char* where) {
  const std::size_t c = n > 0 ? n : 1;
  return host_allocation(bytes_of<T>(c), where, [&] {
    std::unique_ptr<T[]> p(new T[c]);
    prepare_host_pages(p.get(), c * sizeof(T));
    return p;
  });
}

}  // namespace spindle::detail
