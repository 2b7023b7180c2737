// SPDX-License-Identifier: Apache-2.0
#include "spindle/debug/launches.hpp"

#include <mutex>

namespace spindle {
namespace detail {
std::atomic<bool> g_launch_recording{false};
}  // namespace detail

namespace debug {
namespace {
std::mutex& records_mutex() {
  static std::mutex m;
  return m;
}
std::vector<LaunchRecord>& records() {
  static std::vector<LaunchRecord> r;
  return r;
}
}  // namespace

std::string LaunchRecord::kernel_name() const {
  Plan p;
  p.op = op;
  p.mxv = mxv;
  p.mxm = mxm;
  p.sddmm = sddmm;
  p.params = params;
  return p.kernel_name();
}

void record_launches(bool on) {
  std::lock_guard<std::mutex> lock(records_mutex());
  records().clear();
  detail::g_launch_recording.store(on, std::memory_order_relaxed);
}

std::vector<LaunchRecord> recorded_launches() {
  std::lock_guard<std::mutex> lock(records_mutex());
  return records();
}

void note_launch(const LaunchRecord& r) {
  if (!detail::g_launch_recording.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> lock(records_mutex());
  records().push_back(r);
}

}  // namespace debug
}  // namespace spindle
