// SPDX-License-Identifier: Apache-2.0
#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace spindle {
namespace detail {

namespace {
// Loads faster than this print nothing: progress is for waits a person notices.
constexpr double kQuietSeconds = 1.0;
constexpr double kRefreshSeconds = 0.25;
}  // namespace

Progress::Progress(std::string label, std::uint64_t total_bytes, bool enabled)
    : label_(std::move(label)),
      total_(total_bytes),
      enabled_(enabled && ::isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_(start_) {}

Progress::~Progress() {
  if (printed_) std::fputc('\n', stderr);
}

void Progress::maybe_print() {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kQuietSeconds) return;
  if (printed_ && std::chrono::duration<double>(now - last_).count() < kRefreshSeconds) return;
  last_ = now;
  printed_ = true;
  const double done = static_cast<double>(done_.load(std::memory_order_relaxed));
  const double pct = total_ ? 100.0 * done / static_cast<double>(total_) : 100.0;
  std::fprintf(stderr, "\rloading %s: %5.1f%% (%.0f of %.0f MB, %.0f MB/s)", label_.c_str(), pct,
               done / 1e6, static_cast<double>(total_) / 1e6, done / 1e6 / elapsed);
  std::fflush(stderr);
}

}  // namespace detail
}  // namespace spindle
