// SPDX-License-Identifier: Apache-2.0
#include "spindle/detail/host_pages.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace spindle::detail {

#if defined(__linux__)
namespace {

// Older C libraries lack the constants; the kernel's values are fixed
// (uapi/asm-generic/mman-common.h).
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;
// Each thread populates pieces of this size: big enough that the syscalls cost nothing, small
// enough that 16 threads share a 268 MB array evenly.
constexpr std::size_t kPopulatePiece = std::size_t{8} << 20;

bool read_enabled() {
  const char* v = std::getenv("SPINDLE_HUGE_PAGES");
  return v == nullptr || std::strcmp(v, "0") != 0;
}

// Cleared the first time the kernel refuses a step as unsupported (EINVAL: an older kernel, THP
// not built in; ENOSYS / EPERM: a sandbox or seccomp filter), so that later arrays skip it.
std::atomic<bool> g_hugepage_ok{true};
std::atomic<bool> g_populate_ok{true};

bool unsupported(int err) { return err == EINVAL || err == ENOSYS || err == EPERM; }

}  // namespace

bool host_pages_enabled() noexcept {
  static const bool enabled = read_enabled();
  return enabled;
}

void prepare_host_pages(void* p, std::size_t bytes) noexcept {
  if (p == nullptr || bytes < kLargeHostArrayBytes || !host_pages_enabled()) return;
  const int saved_errno = errno;  // silent: the caller's errno is left as it was
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t end = begin + bytes;
  if (g_hugepage_ok.load(std::memory_order_relaxed)) {
    const std::uintptr_t hb = (begin + kHugePage - 1) & ~(kHugePage - 1);
    const std::uintptr_t he = end & ~(kHugePage - 1);
    if (hb < he && madvise(reinterpret_cast<void*>(hb), he - hb, MADV_HUGEPAGE) != 0 &&
        unsupported(errno)) {
      g_hugepage_ok.store(false, std::memory_order_relaxed);
    }
  }
  // Whole pages inside the range only: the edge pages may hold the allocator's own data.
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  if (g_populate_ok.load(std::memory_order_relaxed) && page != 0 && (page & (page - 1)) == 0) {
    const std::uintptr_t pb = (begin + page - 1) & ~(page - 1);
    const std::uintptr_t pe = end & ~(page - 1);
    const std::size_t span = pb < pe ? pe - pb : 0;
    const auto pieces = static_cast<std::int64_t>((span + kPopulatePiece - 1) / kPopulatePiece);
    int refused = 0;
    // Its own team only where it is not inside one already (a nested team per outer thread would
    // oversubscribe the cores); inside one, the calling thread does the pieces.
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : refused) \
    if (pieces > 1 && !omp_in_parallel())
    for (std::int64_t k = 0; k < pieces; ++k) {
      const std::size_t off = static_cast<std::size_t>(k) * kPopulatePiece;
      const std::size_t len = std::min(kPopulatePiece, span - off);
      // Other failures (ENOMEM under memory pressure) leave the pages to be faulted by the first
      // write, as without this step.
      if (madvise(reinterpret_cast<void*>(pb + off), len, MADV_POPULATE_WRITE) != 0 &&
          unsupported(errno)) {
        ++refused;
      }
    }
    if (refused > 0) g_populate_ok.store(false, std::memory_order_relaxed);
  }
  errno = saved_errno;
}

#else

bool host_pages_enabled() noexcept { return false; }
void prepare_host_pages(void*, std::size_t) noexcept {}

#endif

}  // namespace spindle::detail
