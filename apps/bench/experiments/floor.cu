// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): how fast could any
// pull-based SpMV go on R-MAT scale 22, whatever its row structure?
//
// Issue 4's last two bars ask for 0.315 ms (1.5x cuSPARSE) for fp32 mxv with values on R-MAT 22
// and 0.25 ms per PageRank iteration (pattern A^T). The library's warp form sits at the L2 sector
// bound (NOTES.md). This harness times kernels that do strictly less than an SpMV: they read every
// entry's column (and value) and gather u(column), but skip the row offsets, the reduction into
// rows and the writes of y (each thread sums its products into one register; one atomic per warp
// at the end). Any CSR pull kernel that gathers u from the same places does at least this work.
//
//   stream      the index (and value) stream alone, 16-byte loads: the DRAM part
//   floor H     every entry, columns relabelled by in-degree, the hottest H columns of u copied
//               into shared memory by each block, the rest gathered from L2 around L1
//               (ld.global.nc.L1::no_allocate) or through L1; 1 or 2 persistent blocks per SM
//   cold H      only the entries past the hot set (their relabelled columns packed into one
//               array): the cold gathers alone, as if the hot entries and the stream were free
//   random      the same number of gathers with uniformly random columns over the same range
//
// Every kernel's sum is checked against a double host sum (relative error printed).
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/floor.cu build/test/libspindle.a -lcusparse -lcublas -lcublasLt
//     -lopenblas -o floor
// Run: ./floor [scale] [--reps N]
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "apps/bench/experiments/harness.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

using namespace spindle;

using harness::g_reps;
using harness::time_ms;
using harness::upload;

constexpr int kThreads = 1024;
constexpr int kPer = 8;            // entries per lane per chunk
constexpr int kChunk = 32 * kPer;  // entries per warp chunk

__device__ __forceinline__ float ld_around_l1(const float* p) {
  float r;
  asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(r) : "l"(p));
  return r;
}

__device__ __forceinline__ void warp_add(double* out, float s) {
  for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, static_cast<double>(s));
}

// The stream alone: indices (and values) with 16-byte loads, a grid-stride loop.
template <bool kVal>
__global__ void __launch_bounds__(256)
    stream_kernel(const int4* __restrict__ ci, const float4* __restrict__ val, long long n4,
                  double* out) {
  float s = 0.f;
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n4; i += 256LL * gridDim.x) {
    const int4 c = __ldcs(ci + i);
    float a = static_cast<float>((c.x ^ c.y ^ c.z ^ c.w) & 1);
    if (kVal) {
      const float4 v = __ldcs(val + i);
      a += v.x + v.y + v.z + v.w;
    }
    s += a;
  }
  warp_add(out, s);
}

// Every entry: hot columns (< H) from shared memory, the rest from L2. Warps take chunks of 256
// consecutive entries (8 per lane, coalesced); the next chunk's indices are loaded before the
// current chunk's gathers, as the library's warp form does. No rows: one running sum per thread.
template <bool kVal, bool kAroundL1>
__global__ void __launch_bounds__(kThreads)
    floor_kernel(const int* __restrict__ ci, const float* __restrict__ val,
                 const float* __restrict__ x, long long nnz, int H, double* out) {
  extern __shared__ float sx[];
  for (int j = threadIdx.x; j < H; j += blockDim.x) sx[j] = __ldg(x + j);
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
  long long c = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
  float s = 0.f;
  int col[kPer];
  float m[kPer];
  auto load = [&](long long chunk) {
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const long long k = chunk * kChunk + j * 32 + lane;
      col[j] = k < nnz ? __ldcs(ci + k) : -1;
      m[j] = kVal && k < nnz ? __ldcs(val + k) : 1.f;
    }
  };
  if (c * kChunk < nnz) load(c);
  for (; c * kChunk < nnz; c += warps) {
    int cc[kPer];
    float mm[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      cc[j] = col[j];
      mm[j] = m[j];
    }
    if ((c + warps) * kChunk < nnz) load(c + warps);
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      if (cc[j] < 0) continue;
      float v;
      if (cc[j] < H)
        v = sx[cc[j]];
      else
        v = kAroundL1 ? ld_around_l1(x + cc[j]) : __ldg(x + cc[j]);
      s += mm[j] * v;
    }
  }
  warp_add(out, s);
}

// Gathers of x(idx[k]) for a packed array of columns, around L1: the cold gathers alone.
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const int* __restrict__ idx, long long n, const float* __restrict__ x,
                  double* out) {
  const int lane = threadIdx.x & 31;
  const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x >> 5);
  float s = 0.f;
  for (long long c = static_cast<long long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
       c * kChunk < n; c += warps) {
    int cc[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const long long k = c * kChunk + j * 32 + lane;
      cc[j] = k < n ? __ldcs(idx + k) : -1;
    }
#pragma unroll
    for (int j = 0; j < kPer; ++j)
      if (cc[j] >= 0) s += ld_around_l1(x + cc[j]);
  }
  warp_add(out, s);
}

struct Case {
  std::string name;
  bool values;
  std::vector<int> rp, ci;
};

void run_case(const Case& cs, int sms, size_t smem_max) {
  const int n = static_cast<int>(cs.rp.size()) - 1;
  const long long nnz = static_cast<long long>(cs.ci.size());
  std::vector<float> val(nnz);
  for (long long k = 0; k < nnz; ++k) val[k] = 0.5f + float((k * 40503u) & 1023) / 1024.f;
  // columns relabelled by decreasing in-degree (stable), as the library's relabel cache
  const harness::Relabel rl = harness::relabel_by_in_degree(n, cs.ci);
  const std::vector<int>&deg = rl.deg, &order = rl.order, &inv = rl.inv, &cr = rl.cr;
  int active = 0;
  while (active < n && deg[order[active]] > 0) ++active;
  std::vector<float> xr(n);
  for (int p = 0; p < n; ++p) xr[p] = 0.5f + float((order[p] * 2654435761u) >> 8) / float(1 << 24);
  std::vector<long long> cum(n + 1, 0);
  for (int p = 0; p < n; ++p) cum[p + 1] = cum[p] + deg[order[p]];
  printf("\n## %s: n %d nnz %lld, columns with entries %d (%.1f MB of u)\n", cs.name.c_str(), n,
         nnz, active, active * 4.0 / 1e6);
  for (int H : {16384, 32768, 49152, 57344})
    printf("#   hottest %6d columns hold %.1f%% of the entries\n", H, 100.0 * cum[H] / nnz);

  // cuSPARSE on the original columns, the baseline of the bars
  int* d_rp = upload(cs.rp);
  int* d_ci = upload(cs.ci);
  int* d_cr = upload(cr);
  float* d_val = upload(cs.values ? val : std::vector<float>(nnz, 1.f));
  std::vector<float> x(n);
  for (int j = 0; j < n; ++j) x[j] = xr[inv[j]];
  float* d_x = upload(x);
  float* d_xr = upload(xr);
  float* d_y;
  CK(cudaMalloc(&d_y, n * sizeof(float)));
  double* d_out;
  CK(cudaMalloc(&d_out, sizeof(double)));
  const double best_cus = harness::cusparse_spmv_best(
      n, nnz, d_rp, d_ci, d_val, d_x, d_y,
      [](const char* name, double t) { printf("%-52s %8.4f ms\n", name, t); });

  // host reference of the full sum
  double want = 0;
  for (long long k = 0; k < nnz; ++k) want += double(cs.values ? val[k] : 1.f) * xr[cr[k]];
  auto check = [&](double ref) {
    double got;
    CK(cudaMemcpy(&got, d_out, sizeof(double), cudaMemcpyDeviceToHost));
    return std::fabs(got - ref) / std::fabs(ref);
  };
  auto report = [&](const std::string& what, double t, double err) {
    printf("%-52s %8.4f ms  cus/this %.3f  err %.1e\n", what.c_str(), t, best_cus / t, err);
    fflush(stdout);
  };

  // 1. the stream alone
  {
    const long long n4 = nnz / 4;
    double ref = 0;
    for (long long i = 0; i < n4; ++i) {
      const int* c = &cs.ci[i * 4];
      ref += (c[0] ^ c[1] ^ c[2] ^ c[3]) & 1;
      if (cs.values) ref += double(val[i * 4]) + val[i * 4 + 1] + val[i * 4 + 2] + val[i * 4 + 3];
    }
    auto k = cs.values ? stream_kernel<true> : stream_kernel<false>;
    auto call = [&] {
      CK(cudaMemsetAsync(d_out, 0, sizeof(double)));
      k<<<sms * 8, 256>>>(reinterpret_cast<const int4*>(d_ci),
                          reinterpret_cast<const float4*>(d_val), n4, d_out);
    };
    const double t = time_ms(call);
    call();
    const double bytes = double(n4) * 16 * (cs.values ? 2 : 1);
    report("stream of indices" + std::string(cs.values ? " + values" : "") + " (" +
               std::to_string(static_cast<int>(bytes / 1e6)) + " MB, " +
               std::to_string(static_cast<int>(bytes / t / 1e6)) + " GB/s)",
           t, check(ref));
  }
  // 2. every entry, hot set in shared memory
  for (int per_sm : {1, 2}) {
    for (int H : {0, 16384, 32768, 49152, 57344}) {
      const size_t sm = static_cast<size_t>(H) * sizeof(float);
      if (sm * per_sm > smem_max - 2048 * per_sm) continue;
      for (int around : {1, 0}) {
        auto k = cs.values ? (around ? floor_kernel<true, true> : floor_kernel<true, false>)
                           : (around ? floor_kernel<false, true> : floor_kernel<false, false>);
        CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, kThreads, sm));
        if (occ < per_sm) {
          printf("# floor H=%d: %d blocks of 1024 per SM do not fit (%d)\n", H, per_sm, occ);
          continue;
        }
        auto call = [&] {
          CK(cudaMemsetAsync(d_out, 0, sizeof(double)));
          k<<<sms * per_sm, kThreads, sm>>>(d_cr, d_val, d_xr, nnz, H, d_out);
        };
        const double t = time_ms(call);
        call();
        report("floor H=" + std::to_string(H) + " " + std::to_string(per_sm) + "x1024/SM" +
                   (around ? " cold around L1" : " cold through L1"),
               t, check(want));
      }
    }
  }
  // 3. the cold gathers alone, and as many uniformly random ones
  for (int H : {32768, 49152, 57344}) {
    std::vector<int> cold;
    double ref = 0;
    for (long long k = 0; k < nnz; ++k)
      if (cr[k] >= H) {
        cold.push_back(cr[k]);
        ref += xr[cr[k]];
      }
    int* d_cold = upload(cold);
    auto call = [&] {
      CK(cudaMemsetAsync(d_out, 0, sizeof(double)));
      gather_kernel<<<sms * 2, kThreads>>>(d_cold, static_cast<long long>(cold.size()), d_xr,
                                           d_out);
    };
    const double t = time_ms(call);
    call();
    report("cold gathers alone past H=" + std::to_string(H) + " (" +
               std::to_string(cold.size() / 1000000.0).substr(0, 5) + " M, " +
               std::to_string(static_cast<int>(cold.size() / t / 1e6)) + " G/s)",
           t, check(ref));
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> pick(H, std::max(H, active - 1));
    ref = 0;
    for (auto& c : cold) {
      c = pick(rng);
      ref += xr[c];
    }
    CK(cudaMemcpy(d_cold, cold.data(), cold.size() * sizeof(int), cudaMemcpyHostToDevice));
    const double tr = time_ms(call);
    call();
    report("  as many uniform random gathers in [H, active)", tr, check(ref));
    CK(cudaFree(d_cold));
  }
  for (void* p : {(void*)d_rp, (void*)d_ci, (void*)d_cr, (void*)d_val, (void*)d_x, (void*)d_xr,
                  (void*)d_y, (void*)d_out})
    CK(cudaFree(p));
}

int main(int argc, char** argv) {
  int scale = 22;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps")
      g_reps = atoi(argv[++i]);
    else
      scale = atoi(argv[i]);
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, %d SMs, L2 %d MB, shared memory per SM %zu KB\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerMultiprocessor >> 10);
  BuildOptions o;  // as spindle_bench_mxv builds its generated graphs
  o.duplicates = DuplicatePolicy::Collapse;
  {
    // mxv's bar: A itself with values, the benchmark's generator seed
    auto G = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 42), o);
    Case c{"R-MAT " + std::to_string(scale) + " (seed 42), fp32 values", true,
           std::vector<int>(G.row_ptr().begin(), G.row_ptr().end()),
           std::vector<int>(G.col_idx().begin(), G.col_idx().end())};
    run_case(c, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
  }
  {
    // PageRank's bar: A^T, pattern, the PageRank benchmark's seed
    auto G = build_graph<std::int32_t, Pattern>(generate_rmat<std::int32_t>(scale, 16, 1));
    const auto& T = G.transpose();
    Case c{"R-MAT " + std::to_string(scale) + " (seed 1), A^T pattern (PageRank's product)", false,
           std::vector<int>(T.row_ptr().begin(), T.row_ptr().end()),
           std::vector<int>(T.col_idx().begin(), T.col_idx().end())};
    run_case(c, prop.multiProcessorCount, prop.sharedMemPerMultiprocessor);
  }
  return 0;
}
