// SPDX-License-Identifier: Apache-2.0
// The device-independent planner: CPU plans and forced kernels on the CPU; CUDA decisions are
// delegated to planner_cuda.cpp.
#include "ops/core/planner.hpp"

#include <string>

#include "spindle/error.hpp"
#include "spindle/ops/cpu/parallel.hpp"

namespace spindle::detail {
namespace {

// The CPU backend has one kernel per operation; its reason says how it will split the work.
std::string cpu_reason(const GraphStats& stats, std::int64_t cost_per_nnz, const char* what) {
  const std::int64_t work = stats.rows + stats.nnz * cost_per_nnz;
  const int threads = cpu_kernels::threads_for_work(work);
  std::string r = std::string(what) + ": ";
  if (work < cpu_kernels::kSerialWork) {
    r += "one thread (rows + nnz*cost = " + std::to_string(work) + " below the " +
         std::to_string(cpu_kernels::kSerialWork) + " fork/join cut-off)";
  } else if (work / cpu_kernels::kWorkPerThread <= 1 || cpu_threads() <= 1) {
    r += "one thread (rows + nnz*cost = " + std::to_string(work) + ", " +
         std::to_string(cpu_kernels::kWorkPerThread) + " per thread; " +
         std::to_string(cpu_threads()) + " allowed)";
  } else {
    r += "OpenMP over " +
         std::to_string(std::min<std::int64_t>(
             stats.rows, std::int64_t{threads} * cpu_kernels::kBlocksPerThread)) +
         " nnz-balanced row blocks on " + std::to_string(threads) + " threads (" +
         std::to_string(cpu_kernels::kWorkPerThread) + " units of rows + nnz*cost per thread; " +
         cpu_threads_basis() + ")";
  }
  return r;
}

Plan cpu_plan(OpKind op, const std::string& reason) {
  Plan p;
  p.op = op;
  p.device = Device::Cpu;
  p.reason = reason;
  return p;
}

}  // namespace

Plan plan_mxv(const GraphStats& stats, const MxvInfo& info, Device device, const DeviceCaps& caps,
              const Descriptor& desc, const Plan* tuned) {
  if (device == Device::Cuda) return plan_mxv_cuda(stats, info, caps, desc, tuned);
  Plan p = cpu_plan(info.op,
                    cpu_reason(stats, 1,
                               info.op == OpKind::Vxm ? "vxm as a pull over the cached transpose"
                                                      : "row-wise pull"));
  p.mxv = MxvKernel::CpuRowBalanced;
  if (desc.mxv_kernel == MxvKernel::Auto) return p;
  return apply_forced(p, &Plan::mxv, desc.mxv_kernel,
                      desc.mxv_kernel == MxvKernel::CpuRowBalanced
                          ? std::string()
                          : std::string(to_string(desc.mxv_kernel)) + " is a CUDA kernel");
}

Device resolve_target_device(const char* what, Device requested, const DeviceCaps& target) {
  switch (requested) {
    case Device::Cpu:
      return Device::Cpu;
    case Device::Auto:
      return target.available ? Device::Cuda : Device::Cpu;
    case Device::Cuda:
      break;
  }
  if (!target.available) {
    throw InvalidArgument(std::string(what) +
                          ": the descriptor asks for CUDA but the target DeviceCaps describes no "
                          "CUDA device (available = false); pass reference_hopper_caps() or a "
                          "device's caps");
  }
  return Device::Cuda;
}

const DeviceCaps& caps_for(Device device) {
  static const DeviceCaps none{};
  return device == Device::Cuda ? device_caps() : none;
}

Plan plan_mxm(const GraphStats& stats, const MxmInfo& info, Device device, const DeviceCaps& caps,
              const Descriptor& desc, const Plan* tuned_mxm, const Plan* tuned_mxv) {
  if (device == Device::Cuda) return plan_mxm_cuda(stats, info, caps, desc, tuned_mxm, tuned_mxv);
  Plan p = cpu_plan(OpKind::Mxm, cpu_reason(stats, info.n, "rows of C, vectorized over N"));
  p.mxm = MxmKernel::CpuRowBalanced;
  if (desc.mxm_kernel == MxmKernel::Auto) return p;
  return apply_forced(p, &Plan::mxm, desc.mxm_kernel,
                      desc.mxm_kernel == MxmKernel::CpuRowBalanced
                          ? std::string()
                          : std::string(to_string(desc.mxm_kernel)) + " is a CUDA kernel");
}

Plan plan_sddmm(const GraphStats& stats, const SddmmInfo& info, Device device,
                const DeviceCaps& caps, const Descriptor& desc, const Plan* tuned) {
  if (device == Device::Cuda) return plan_sddmm_cuda(stats, info, caps, desc, tuned);
  Plan p = cpu_plan(OpKind::Sddmm, cpu_reason(stats, info.k, "dot products per stored entry"));
  p.sddmm = SddmmKernel::CpuRowBalanced;
  if (desc.sddmm_kernel == SddmmKernel::Auto) return p;
  return apply_forced(p, &Plan::sddmm, desc.sddmm_kernel,
                      desc.sddmm_kernel == SddmmKernel::CpuRowBalanced
                          ? std::string()
                          : std::string(to_string(desc.sddmm_kernel)) + " is a CUDA kernel");
}

}  // namespace spindle::detail
