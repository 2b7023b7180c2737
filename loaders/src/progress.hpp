// SPDX-License-Identifier: Apache-2.0
#pragma once
// Private: progress line on stderr for long loads. Silent unless enabled, stderr is a terminal
// and the load has already taken ~1 s, so scripts and logs never see it.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace spindle {
namespace detail {

class Progress {
 public:
  Progress(std::string label, std::uint64_t total_bytes, bool enabled);
  ~Progress();
  /// Any thread: adds processed bytes.
  void advance(std::uint64_t bytes) noexcept { done_.fetch_add(bytes, std::memory_order_relaxed); }
  /// One thread only (e.g. OpenMP thread 0): prints when due.
  void maybe_print();

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::uint64_t total_;
  bool enabled_;
  bool printed_ = false;
  std::atomic<std::uint64_t> done_{0};
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace detail
}  // namespace spindle
