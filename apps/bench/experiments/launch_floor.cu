// SPDX-License-Identifier: Apache-2.0
// Experiment (not built by CMake): the floor under a launch-bound mxv call. Times, with CUDA
// events around each launch behind a spin kernel (as detail::cuda::time_runs does), an empty
// kernel, the same with 132 x 256 threads, a kernel reading and writing 6474 floats (as20graph's
// rows), two empty kernels in a row and a memset before one. Median of 30 after 3 warm-ups.
//
//   nvcc -O3 -arch=sm_90 apps/bench/experiments/launch_floor.cu -o launch_floor && ./launch_floor
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

__global__ void empty_kernel() {}

__global__ void spin_kernel(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

__global__ void touch_kernel(float* y, const float* x, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = 2.0f * x[i];
}

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

template <class F>
float median_us(F&& enqueue) {
  constexpr int kReps = 30;
  std::vector<cudaEvent_t> ev(2 * kReps);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < 3; ++i) enqueue();
  cudaDeviceSynchronize();
  spin_kernel<<<1, 1>>>(6'000'000LL);
  for (int r = 0; r < kReps; ++r) {
    cudaEventRecord(ev[2 * r]);
    enqueue();
    cudaEventRecord(ev[2 * r + 1]);
  }
  cudaDeviceSynchronize();
  std::vector<float> ms(kReps);
  for (int r = 0; r < kReps; ++r) cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]);
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(ms.begin(), ms.end());
  return 1000.0f * ms[kReps / 2];
}

}  // namespace

int main() {
  float* x = nullptr;
  float* y = nullptr;
  if (!ok(cudaMalloc(&x, 1 << 20), "cudaMalloc") || !ok(cudaMalloc(&y, 1 << 20), "cudaMalloc")) {
    return 1;
  }
  std::printf("empty kernel, 1 x 1:        %.2f us\n", median_us([] { empty_kernel<<<1, 1>>>(); }));
  std::printf("empty kernel, 132 x 256:    %.2f us\n",
              median_us([] { empty_kernel<<<132, 256>>>(); }));
  std::printf("6474 floats read + written: %.2f us\n",
              median_us([&] { touch_kernel<<<26, 256>>>(y, x, 6474); }));
  std::printf("two empty kernels:          %.2f us\n", median_us([] {
                empty_kernel<<<1, 1>>>();
                empty_kernel<<<1, 1>>>();
              }));
  std::printf("memset 26 KB + empty:       %.2f us\n", median_us([&] {
                cudaMemsetAsync(y, 0, 26000);
                empty_kernel<<<1, 1>>>();
              }));
  const bool fine = ok(cudaGetLastError(), "launch") && ok(cudaDeviceSynchronize(), "sync");
  cudaFree(x);
  cudaFree(y);
  return fine ? 0 : 1;
}
