// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file launches.hpp
/// @brief A debug record of the kernel families the CUDA backend launches: tests compare it with
/// the plan of the same call (plan_for_*, SPINDLE_LOG=plan), which proves that the plan the
/// planner shows is the plan that runs. Off by default; while off, each launch costs one relaxed
/// atomic load.

#include <atomic>
#include <string>
#include <vector>

#include "spindle/plan.hpp"

namespace spindle {

namespace detail {
/// Set while launches are recorded (read relaxed on every launch).
extern std::atomic<bool> g_launch_recording;
}  // namespace detail

namespace debug {

/// One launch of a kernel family: the op, the kernel (the field of its op), and the launch
/// parameters it ran with.
struct LaunchRecord {
  OpKind op = OpKind::Mxv;
  MxvKernel mxv = MxvKernel::Auto;
  MxmKernel mxm = MxmKernel::Auto;
  SddmmKernel sddmm = SddmmKernel::Auto;
  LaunchParams params;
  /// The kernel's name, as Plan::kernel_name() prints it.
  std::string kernel_name() const;
};

/// Starts (clearing what was recorded) or stops recording. Thread-safe.
void record_launches(bool on);
/// The launches recorded since recording started, in order.
std::vector<LaunchRecord> recorded_launches();

/// Appends a record (what the backend calls as it launches; cheap when recording is off).
void note_launch(const LaunchRecord& r);

}  // namespace debug
}  // namespace spindle
