// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): where a GPU PageRank iteration's time goes. Times, on one
// generated graph, the library's per-iteration loop and each of its calls alone (wall clock
// around N calls and one device synchronize, so launch gaps count but no per-call sync does).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/power_iteration.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/rank.hpp"
#include "spindle/ops/reduce.hpp"

using namespace spindle;
using Clock = std::chrono::steady_clock;

template <class F>
double per_call_ms(int n, F&& f) {
  f();
  cudaDeviceSynchronize();
  const auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) f();
  cudaDeviceSynchronize();
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() / n;
}

int main(int argc, char** argv) {
  const int scale = argc > 1 ? std::atoi(argv[1]) : 22;
  const bool uniform = argc > 2 && std::string(argv[2]) == "uniform";
  Coo<std::int32_t> coo = uniform ? generate_uniform<std::int32_t>(scale, 16, 1)
                                  : generate_rmat<std::int32_t>(scale, 16, 1);
  const auto A = build_graph<std::int32_t, Pattern>(std::move(coo));
  const std::int64_t n = A.rows();
  std::printf("graph %s%d: n %lld nnz %lld\n", uniform ? "uniform" : "rmat", scale, (long long)n,
              (long long)A.nnz());
  Descriptor desc;
  desc.device = Device::Cuda;
  // Library loop (as spindle bench pagerank).
  PageRankOptions po;
  po.device = Device::Cuda;
  po.tol = 0.0;
  po.max_iter = 20;
  std::vector<double> per;
  Clock::time_point last;
  po.on_iteration = [&](int it, double) {
    const auto now = Clock::now();
    if (it > 1) per.push_back(std::chrono::duration<double, std::milli>(now - last).count());
    last = now;
  };
  (void)pagerank<float>(A, po);
  per.clear();
  for (int r = 0; r < 3; ++r) (void)pagerank<float>(A, po);
  std::sort(per.begin(), per.end());
  std::printf("library loop: median %.4f ms/iter (min %.4f)\n", per[per.size() / 2], per[0]);

  Vector<float> deg(n, 0.f);
  reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, desc);
  Vector<float> inv(n);
  apply(inv, Mask{}, Accum::none(), Unary<float>::make(UnaryOp::ScalarDiv, 0.85f), deg, desc);
  Vector<float> x(n, 1.f / float(n)), x_new(n), w(n), leak(1);
  const semiring::plus_times<float> pt{};
  const int N = 50;
  const double t_scale = per_call_ms(N, [&] { scale_and_leak(w, leak, x, inv, desc); });
  const double t_vxm = per_call_ms(N, [&] { vxm(x_new, Mask{}, Accum::none(), pt, w, A, desc); });
  const double t_tele = per_call_ms(N, [&] {
    (void)teleport_and_residual(x_new, x, leak, 0.15 / n, 0.85 / n,
                                static_cast<const Vector<float>*>(nullptr), desc);
  });
  const double t_two = per_call_ms(N, [&] {
    scale_and_leak(w, leak, x, inv, desc);
    vxm(x_new, Mask{}, Accum::none(), pt, w, A, desc);
  });
  const double t_all = per_call_ms(N, [&] {
    scale_and_leak(w, leak, x, inv, desc);
    vxm(x_new, Mask{}, Accum::none(), pt, w, A, desc);
    (void)teleport_and_residual(x_new, x, leak, 0.15 / n, 0.85 / n,
                                static_cast<const Vector<float>*>(nullptr), desc);
  });
  const double t_fused = per_call_ms(N, [&] {
    (void)teleport_residual_and_scale(x_new, x, leak, 0.15 / n, 0.85 / n,
                                      static_cast<const Vector<float>*>(nullptr), w, inv, desc);
  });
  const double t_fused_loop = per_call_ms(N, [&] {
    vxm(x_new, Mask{}, Accum::none(), pt, w, A, desc);
    (void)teleport_residual_and_scale(x_new, x, leak, 0.15 / n, 0.85 / n,
                                      static_cast<const Vector<float>*>(nullptr), w, inv, desc);
  });
  // The same loop keeping every pending residual: nothing waits, so this is the device's time.
  std::vector<PendingScalar<float>> kept;
  kept.reserve(N + 1);
  const double t_fused_kept = per_call_ms(N, [&] {
    vxm(x_new, Mask{}, Accum::none(), pt, w, A, desc);
    kept.push_back(teleport_residual_and_scale(x_new, x, leak, 0.15 / n, 0.85 / n,
                                               static_cast<const Vector<float>*>(nullptr), w, inv,
                                               desc));
  });
  kept.clear();
  std::printf(
      "fused step %.4f ms per call (its pending residual dropped at once: a wait) | vxm + fused "
      "step %.4f (the same) | vxm + fused step, residuals kept %.4f\n",
      t_fused, t_fused_loop, t_fused_kept);
  // What a whole run spends outside its iterations: max_iter 0 builds the degrees, 1/outdeg and
  // the vectors only.
  auto whole_ms = [&](int max_iter, double tol) {
    PageRankOptions w0;
    w0.device = Device::Cuda;
    w0.max_iter = max_iter;
    w0.tol = tol;
    (void)pagerank<float>(A, w0);
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      cudaDeviceSynchronize();
      const auto t0 = Clock::now();
      (void)pagerank<float>(A, w0);
      cudaDeviceSynchronize();
      t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[2];
  };
  std::printf("whole run ms: set-up only (max_iter 0) %.3f | 1 iteration %.3f | tol 1e-6 %.3f\n",
              whole_ms(0, 0.0), whole_ms(1, 0.0), whole_ms(100, 1e-6));
  // Power iteration (centrality: vxm), per iteration: the library's loop (difference of two fixed
  // lengths) against its old sequence of ops with two scalar reads per iteration.
  auto power_ms = [&](int iters) {
    PowerIterationOptions po2;
    po2.device = Device::Cuda;
    po2.centrality = true;
    po2.tol = 0.0;
    po2.max_iter = iters;
    (void)power_iteration<float>(A, po2);
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
      cudaDeviceSynchronize();
      const auto t0 = Clock::now();
      (void)power_iteration<float>(A, po2);
      cudaDeviceSynchronize();
      t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[2];
  };
  const double power_lib = (power_ms(40) - power_ms(20)) / 20.0;
  Vector<float> px(n, 1.f / float(n)), py(n), sq(n);
  const double power_old = per_call_ms(N, [&] {
    apply(py, Mask{}, Accum::none(), Unary<float>::times(1.0f), px, desc);
    vxm(py, Mask{}, Accum::plus(), pt, px, A, desc);
    ewise_mult(sq, Mask{}, Accum::none(), BinaryOp::Times, py, py, desc);
    float norm = std::sqrt(reduce(MonoidKind::Plus, sq, desc));
    if (norm == 0.f) norm = 1.f;
    apply(py, Mask{}, Accum::none(), Unary<float>::make(UnaryOp::DivByScalar, norm), py, desc);
    (void)l1_distance(py, px, desc);
    std::swap(px, py);
  });
  std::printf(
      "power iteration (centrality) ms per iteration: library %.4f | old ops sequence %.4f\n",
      power_lib, power_old);
  // PageRank's set-up with host-filled constants (uploaded at first use) against constants filled
  // on the device (assign), alternating, median of 11 each.
  auto setup_ms = [&](bool on_device) {
    cudaDeviceSynchronize();
    const auto t0 = Clock::now();
    {
      Vector<float> d0(n, 0.f);
      if (on_device) assign(d0, Mask{}, Accum::none(), 0.f, desc);
      reduce_rows(d0, Mask{}, Accum::plus(), MonoidKind::Plus, A, desc);
      Vector<float> i0(n);
      apply(i0, Mask{}, Accum::none(), Unary<float>::make(UnaryOp::ScalarDiv, 0.85f), d0, desc);
      Vector<float> x0(n, 1.f / float(n));
      if (on_device) assign(x0, Mask{}, Accum::none(), 1.f / float(n), desc);
      Vector<float> w0(n), l0(1);
      scale_and_leak(w0, l0, x0, i0, desc);
      cudaDeviceSynchronize();
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  std::vector<double> host_fill, dev_fill;
  for (int r = 0; r < 11; ++r) {
    host_fill.push_back(setup_ms(false));
    dev_fill.push_back(setup_ms(true));
  }
  std::sort(host_fill.begin(), host_fill.end());
  std::sort(dev_fill.begin(), dev_fill.end());
  std::printf(
      "set-up (degrees, 1/outdeg, x, first w): constants from the host %.3f ms (min %.3f) | filled "
      "on the device %.3f ms (min %.3f)\n",
      host_fill[5], host_fill[0], dev_fill[5], dev_fill[0]);
  Descriptor forced = desc;
  forced.mxv_kernel = MxvKernel::Cusparse;
  const double t_cus = per_call_ms(N, [&] { vxm(x_new, Mask{}, Accum::none(), pt, w, A, forced); });
  std::printf(
      "alone, ms per call: scale_and_leak %.4f | vxm %.4f | teleport_and_residual (reads back) "
      "%.4f | scale+vxm %.4f | all three %.4f | vxm cuSPARSE %.4f\n",
      t_scale, t_vxm, t_tele, t_two, t_all, t_cus);
  return 0;
}
