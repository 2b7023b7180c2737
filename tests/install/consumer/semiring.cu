// SPDX-License-Identifier: Apache-2.0
// A user-defined semiring on CUDA from an installed Spindle: SPINDLE_CUDA_SEMIRING instantiates
// the generic kernels for it in this file; the public operations then run it on the GPU (when
// one is visible) and must agree with the CPU backend. Built with nvcc where the installed
// package has CUDA.
#include <cmath>
#include <cstdio>
#include <vector>

#include "spindle/cuda/semiring.cuh"
#include "spindle/spindle.hpp"

// The (max, min) "widest path" semiring over double, with a multiply that is not symmetric in
// its role: mul(a, b) = min(a, 2 b). vxm must apply it as mul(u(i), A(i,j)).
struct widest_scaled {
  using value_type = double;
  static constexpr spindle::SemiringKind kind = spindle::SemiringKind::Custom;
  static constexpr bool has_terminal = false;
  SPINDLE_HD static constexpr double identity() { return -1.0; }
  SPINDLE_HD static constexpr double terminal() { return -1.0; }
  SPINDLE_HD static constexpr double add(double a, double b) { return a < b ? b : a; }
  SPINDLE_HD static constexpr double mul(double a, double b) { return a < 2 * b ? a : 2 * b; }
};
SPINDLE_CUDA_SEMIRING(widest_scaled);

int main() {
  using spindle::Device;
  // A ring of 300 vertices with chords, weights 1..7.
  spindle::Coo<std::int32_t> coo;
  coo.rows = coo.cols = 300;
  for (std::int32_t i = 0; i < 300; ++i) {
    for (std::int32_t d : {1, 7, 31}) {
      coo.row.push_back(i);
      coo.col.push_back((i + d) % 300);
      coo.val.push_back(1.0 + (i * d) % 7);
    }
  }
  const auto g = spindle::build_graph<std::int32_t, double>(coo);
  spindle::Vector<double> u(300);
  for (std::int64_t i = 0; i < 300; ++i) u[i] = 0.5 * static_cast<double>(i % 11);

  const spindle::Plan plan = spindle::plan_for_mxv<widest_scaled>(
      g, spindle::Mask{}, spindle::Accum::none(), spindle::Descriptor().on(Device::Cuda),
      spindle::reference_hopper_caps());
  bool ok = plan.mxv == spindle::MxvKernel::Generic &&
            plan.reason.find("user-defined semiring") != std::string::npos;
  if (!spindle::cuda_available()) {
    std::printf("spindle cuda consumer: %s (built; no GPU visible, nothing run)\n",
                ok ? "ok" : "MISMATCH");
    return ok ? 0 : 1;
  }
  const spindle::Descriptor cpu = spindle::Descriptor().on(Device::Cpu);
  const spindle::Descriptor gpu = spindle::Descriptor().on(Device::Cuda);
  spindle::Vector<double> w_cpu(300), w_gpu(300), v_cpu(300), v_gpu(300);
  spindle::mxv(w_cpu, spindle::Mask{}, spindle::Accum::none(), widest_scaled{}, g, u, cpu);
  spindle::mxv(w_gpu, spindle::Mask{}, spindle::Accum::none(), widest_scaled{}, g, u, gpu);
  spindle::vxm(v_cpu, spindle::Mask{}, spindle::Accum::none(), widest_scaled{}, u, g, cpu);
  spindle::vxm(v_gpu, spindle::Mask{}, spindle::Accum::none(), widest_scaled{}, u, g, gpu);
  for (std::int64_t i = 0; i < 300; ++i) {
    ok = ok && w_cpu[i] == w_gpu[i] && v_cpu[i] == v_gpu[i];
  }
  spindle::DenseMatrix<double> B(300, 5), C_cpu, C_gpu;
  for (std::int64_t e = 0; e < B.size(); ++e) B.data()[e] = static_cast<double>(e % 13) / 4.0;
  spindle::mxm(C_cpu, spindle::Accum::none(), widest_scaled{}, g, B, cpu);
  spindle::mxm(C_gpu, spindle::Accum::none(), widest_scaled{}, g, B, gpu);
  for (std::int64_t e = 0; e < C_cpu.size(); ++e) ok = ok && C_cpu.data()[e] == C_gpu.data()[e];
  std::vector<double> s_cpu, s_gpu;
  spindle::sddmm(s_cpu, spindle::Accum::none(), widest_scaled{}, g, B, B, cpu);
  spindle::sddmm(s_gpu, spindle::Accum::none(), widest_scaled{}, g, B, B, gpu);
  ok = ok && s_cpu == s_gpu;
  std::printf("spindle cuda consumer: %s (user semiring on %s)\n", ok ? "ok" : "MISMATCH",
              spindle::device_caps().name.c_str());
  return ok ? 0 : 1;
}
