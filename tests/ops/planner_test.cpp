// SPDX-License-Identifier: Apache-2.0
// The device-independent planner: CPU plans, forced kernels and their fallbacks on both devices
// (CUDA decisions are checked with reference_hopper_caps(), so they run in CPU builds).
#include <gtest/gtest.h>

#include "ops/core/planner.hpp"
#include "ops_test_util.hpp"
#include "spindle/executor.hpp"

namespace spindle {
namespace {

GraphStats stats_of(std::int64_t rows, std::int64_t nnz, std::int64_t max_row) {
  GraphStats s;
  s.rows = rows;
  s.cols = rows;
  s.nnz = nnz;
  s.avg_row = rows > 0 ? double(nnz) / double(rows) : 0;
  s.max_row = max_row;
  return s;
}

TEST(Planner, CpuRunsTheRowBalancedKernelAndSaysHow) {
  const detail::MxvInfo info;
  const Plan p = detail::plan_mxv(stats_of(1 << 20, 16 << 20, 5000), info, Device::Cpu,
                                  DeviceCaps{}, Descriptor{});
  EXPECT_EQ(p.device, Device::Cpu);
  EXPECT_EQ(p.mxv, MxvKernel::CpuRowBalanced);
  EXPECT_FALSE(p.forced);
  EXPECT_FALSE(p.reason.empty());
  const Plan small =
      detail::plan_mxv(stats_of(10, 20, 3), info, Device::Cpu, DeviceCaps{}, Descriptor{});
  EXPECT_NE(small.reason.find("one thread"), std::string::npos) << small.reason;
  detail::MxmInfo mi;
  mi.n = 32;
  EXPECT_EQ(
      detail::plan_mxm(stats_of(100, 1000, 20), mi, Device::Cpu, DeviceCaps{}, Descriptor{}).mxm,
      MxmKernel::CpuRowBalanced);
  detail::SddmmInfo si;
  si.k = 64;
  EXPECT_EQ(detail::plan_sddmm(stats_of(100, 1000, 20), si, Device::Cpu, DeviceCaps{}, Descriptor{})
                .sddmm,
            SddmmKernel::CpuRowBalanced);
}

TEST(Planner, LaunchParametersPrintInOneFormatEverywhere) {
  LaunchParams q;
  EXPECT_EQ(to_string(q), "");
  q.items_per_worker = 1024;
  q.tile = 1;
  EXPECT_EQ(to_string(q), "items=1024 tile=1");
  q.block_threads = 256;
  q.lanes_per_row = 8;
  q.form = KernelForm::RowBlockWarp;
  q.vec = 4;
  EXPECT_EQ(to_string(q), "block=256 lanes=8 items=1024 tile=1 form=warp vec=4");
  Plan p;
  p.device = Device::Cuda;
  p.mxv = MxvKernel::RowBlock;
  p.params = q;
  p.reason = "why";
  EXPECT_EQ(p.describe(),
            std::string("[spindle plan] mxv on cuda: row_block ") + to_string(q) + " -- why");
  p.params = LaunchParams{};
  EXPECT_EQ(p.describe(), "[spindle plan] mxv on cuda: row_block -- why");
}

TEST(Planner, ForcedKernelIsUsedWhereTheDeviceCanRunItAndFallsBackOtherwise) {
  const detail::MxvInfo info;
  const GraphStats st = stats_of(1000, 8000, 40);
  const Plan cpu_forced = detail::plan_mxv(st, info, Device::Cpu, DeviceCaps{},
                                           Descriptor{}.force(MxvKernel::CpuRowBalanced));
  EXPECT_TRUE(cpu_forced.forced);
  EXPECT_EQ(cpu_forced.reason, "forced by the descriptor");
  const Plan gpu_on_cpu = detail::plan_mxv(st, info, Device::Cpu, DeviceCaps{},
                                           Descriptor{}.force(MxvKernel::SubwarpPerRow));
  EXPECT_FALSE(gpu_on_cpu.forced);
  EXPECT_EQ(gpu_on_cpu.mxv, MxvKernel::CpuRowBalanced);
  EXPECT_NE(gpu_on_cpu.reason.find("fell back"), std::string::npos) << gpu_on_cpu.reason;

  const DeviceCaps h100 = reference_hopper_caps();
  const Plan gpu = detail::plan_mxv(st, info, Device::Cuda, h100, Descriptor{});
  EXPECT_EQ(gpu.device, Device::Cuda);
  EXPECT_NE(gpu.mxv, MxvKernel::CpuRowBalanced);
  const Plan cpu_on_gpu =
      detail::plan_mxv(st, info, Device::Cuda, h100, Descriptor{}.force(MxvKernel::CpuRowBalanced));
  EXPECT_FALSE(cpu_on_gpu.forced);
  EXPECT_NE(cpu_on_gpu.mxv, MxvKernel::CpuRowBalanced);
  EXPECT_NE(cpu_on_gpu.reason.find("fell back"), std::string::npos) << cpu_on_gpu.reason;
  const Plan merge =
      detail::plan_mxv(st, info, Device::Cuda, h100, Descriptor{}.force(MxvKernel::MergePath));
  EXPECT_TRUE(merge.forced);
  EXPECT_EQ(merge.mxv, MxvKernel::MergePath);

  detail::MxmInfo mi;
  mi.n = 8;
  const Plan mxm_cpu_on_gpu =
      detail::plan_mxm(st, mi, Device::Cuda, h100, Descriptor{}.force(MxmKernel::CpuRowBalanced));
  EXPECT_FALSE(mxm_cpu_on_gpu.forced);
  EXPECT_NE(mxm_cpu_on_gpu.mxm, MxmKernel::CpuRowBalanced);
  detail::SddmmInfo si;
  si.k = 8;
  const Plan sd =
      detail::plan_sddmm(st, si, Device::Cpu, DeviceCaps{}, Descriptor{}.force(SddmmKernel::Iir));
  EXPECT_FALSE(sd.forced);
  EXPECT_EQ(sd.sddmm, SddmmKernel::CpuRowBalanced);
}

}  // namespace
}  // namespace spindle
