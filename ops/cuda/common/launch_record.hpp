// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file launch_record.hpp
/// @brief How the CUDA backend notes what it launches (spindle/debug/launches.hpp): the kernel
/// family of the plan it runs, with the plan's launch parameters. Host code.

#include "spindle/debug/launches.hpp"
#include "spindle/plan.hpp"

namespace spindle::detail::cuda {

inline void record_launch(const Plan& plan, OpKind op, MxvKernel k) {
  if (!g_launch_recording.load(std::memory_order_relaxed)) return;
  debug::LaunchRecord r;
  r.op = op;
  r.mxv = k;
  if (op == OpKind::Mxm) r.mxm = plan.mxm;
  r.params = plan.params;
  debug::note_launch(r);
}
inline void record_launch(const Plan& plan, OpKind op, MxmKernel k) {
  if (!g_launch_recording.load(std::memory_order_relaxed)) return;
  debug::LaunchRecord r;
  r.op = op;
  r.mxm = k;
  r.params = plan.params;
  debug::note_launch(r);
}
inline void record_launch(const Plan& plan, OpKind op, SddmmKernel k) {
  if (!g_launch_recording.load(std::memory_order_relaxed)) return;
  debug::LaunchRecord r;
  r.op = op;
  r.sddmm = k;
  r.params = plan.params;
  debug::note_launch(r);
}

}  // namespace spindle::detail::cuda
