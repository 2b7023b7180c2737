// SPDX-License-Identifier: Apache-2.0
// Event timing on Spindle's stream (see timing.hpp).
#include "engine/src/cuda/timing.hpp"

#include <algorithm>

#include "engine/src/cuda/device_buffer.hpp"

namespace spindle::detail::cuda {
namespace {

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

struct Events {
  std::vector<cudaEvent_t> e;
  explicit Events(std::size_t n) : e(n, nullptr) {
    for (auto& x : e) SPINDLE_CUDA_CHECK(cudaEventCreate(&x));
  }
  ~Events() {
    for (auto& x : e) {
      if (x) cudaEventDestroy(x);
    }
  }
};

}  // namespace

std::vector<float> time_runs(const std::function<void()>& enqueue, int warmup, int reps) {
  Context& ctx = context();
  for (int i = 0; i < warmup; ++i) enqueue();
  ctx.synchronize();
  Events ev(static_cast<std::size_t>(2 * reps));
  // ~3 ms at Hopper clocks: long enough for the host to enqueue the runs behind it.
  spin_kernel<<<1, 1, 0, ctx.stream>>>(6'000'000LL);
  SPINDLE_CUDA_CHECK_LAUNCH("spin_kernel");
  for (int r = 0; r < reps; ++r) {
    SPINDLE_CUDA_CHECK(cudaEventRecord(ev.e[2 * r], ctx.stream));
    enqueue();
    SPINDLE_CUDA_CHECK(cudaEventRecord(ev.e[2 * r + 1], ctx.stream));
  }
  ctx.synchronize();
  std::vector<float> ms(static_cast<std::size_t>(reps));
  for (int r = 0; r < reps; ++r) {
    SPINDLE_CUDA_CHECK(cudaEventElapsedTime(&ms[r], ev.e[2 * r], ev.e[2 * r + 1]));
  }
  return ms;
}

double median(std::vector<float> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (static_cast<double>(v[n / 2 - 1]) + v[n / 2]);
}

}  // namespace spindle::detail::cuda
