// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file explain.hpp
/// @brief `spindle info --explain`: what the planner would pick for this graph, per operation
/// and device, without running anything. On a machine without a GPU the CUDA rows use
/// reference_hopper_caps(), so the CUDA choice can be inspected anywhere.

#include <string>
#include <vector>

#include "common.hpp"
#include "input.hpp"
#include "json.hpp"
#include "spindle/descriptor.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::cli {

/// One planned call.
struct ExplainRow {
  std::string call;     ///< "vxm plus_times<float>" ...
  std::string used_by;  ///< which subcommands issue this call
  Plan plan;
};

/// A device and the plans for it.
struct ExplainDevice {
  Device device = Device::Cpu;
  std::string caps;  ///< what the plans assume ("2 threads", "NVIDIA H100 (detected)", ...)
  std::vector<ExplainRow> rows;
};

/// Plans mxv, vxm (plus_times; the graph's value type), mxm (dense width `width`) and sddmm
/// (inner dimension `width`) on the CPU and on CUDA. Forced kernels in `desc` are honored the
/// same way the ops honor them.
std::vector<ExplainDevice> explain_plans(const Input& in, const Descriptor& desc,
                                         std::int64_t width);

/// When `ex` forces an mxv kernel that the planner would not run on ex.device for this graph
/// (e.g. a CUDA kernel on the CPU), prints one warning with the planner's reason, so a
/// benchmark run never silently measures another kernel.
/// `semiring`: the one the command's vxm calls use (push_scatter runs for min / max / or / any).
void warn_if_forced_kernel_falls_back(const Input& in, const Execution& ex,
                                      SemiringKind semiring = SemiringKind::PlusTimes);

/// The same for a forced mxm kernel (gcn --kernel), planned for dense width `width`.
void warn_if_forced_mxm_kernel_falls_back(const Input& in, const Execution& ex, MxmKernel kernel,
                                          std::int64_t width);

/// Human-readable table.
std::string explain_text(const std::vector<ExplainDevice>& devices);

/// Adds "plans": [...] to an open JSON object.
void explain_json(JsonWriter& w, const std::vector<ExplainDevice>& devices);

}  // namespace spindle::cli
