// SPDX-License-Identifier: Apache-2.0
// Exploration harness for the GEMM pair (ops/cuda/gemm/sm90a/split_tf32_wgmma.cu,
// split_tf32_wgmma_mlp): T = ReLU(A W1 + b1) W2 at GCN 128-128-32's shapes on R-MAT scale 22
// (m = 4194304, k = n1 = 128, n2 = 32). Not built by CMake and not a benchmark of record (claims
// come from `spindle bench gcn`). It includes the library's kernel file, so the variants below
// share its helpers, and times on the same operands (NOTES.md run 24):
//   lib        the library's kernel as it is
//   p1only     the tile loop with the second product left out (a sum of the hidden tile stored
//              instead): what the first product costs inside this kernel
//   pair_variant<KC, Full, PP, FAST, BIAS_SMEM> rebuilds the kernel of run 23 and each change
//   of run 24 on its own: PP the warpgroups' turns, FAST the split without cvt.rna's guard
//   (tf32split::split; split_cvt is the old one), BIAS_SMEM the bias from shared memory
//   (otherwise through the read-only cache, one load per value in the epilogue)
//   plain128   the library's single wgmma GEMM, A W1 alone (writes the 2 GB hidden matrix)
// Each result is compared with the library kernel's (max |diff|) and with a double product on
// 512 sampled rows (max |t - ref| / sum |terms|).
// Build (dev machine, from the repository root):
//   nvcc -O3 -std=c++17 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -I.
//     -Iengine/include -Iops/include -Iloaders/include -Ialgorithms/include
//     apps/bench/experiments/pair_variants.cu -o pair_variants
// Run:   ./pair_variants --m 4194304 --reps 20 [--only NAME]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ops/cuda/gemm/sm90a/split_tf32_wgmma.cu"

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace spindle::detail::cuda {
namespace {

enum class Mode { P1Only, Full };

#ifdef SPINDLE_WGMMA_DEVICE
/// The split as it was before run 24: cvt.rna.tf32.f32, which ptxas expands with a guard for
/// infinities and NaNs (the clamp already rules them out). Same bits as tf32split::split.
__device__ __forceinline__ void split_cvt(float x, std::uint32_t& hi, std::uint32_t& lo) {
  const float c = fminf(fmaxf(x, -tf32split::kMaxSplit), tf32split::kMaxSplit);
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(c));
  lo = __float_as_uint(x - __uint_as_float(hi)) & 0xffffe000u;
}

template <bool FAST>
__device__ __forceinline__ void split_a(float x, std::uint32_t& hi, std::uint32_t& lo) {
  if constexpr (FAST) {
    split(x, hi, lo);
  } else {
    split_cvt(x, hi, lo);
  }
}

/// wgmma_tiles with options: PP takes the two warpgroups' first products in turns (warpgroup w
/// waits at barrier 1 + w for its turn, issues its tile's chunks, and opens the other's barrier
/// as soon as its last chunk is issued; both run warpgroup 0's number of turns, warpgroup 1's
/// extra turn computing nothing, so every arrive meets its sync); FAST splits with
/// tf32split::split, otherwise with split_cvt.
template <int N, int KC, bool PP, bool FAST, class Fin>
__device__ __forceinline__ void tiles_v(int m, int k, const float* __restrict__ A, std::uint32_t wh,
                                        std::uint32_t wl, float4* slots, Fin&& fin) {
  constexpr int kGroups = N / 8;
  constexpr int kAcc = N / 2;
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0);
  const int warp = (threadIdx.x % 128) / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int tiles = (m + 63) / 64;
  const int stride = 2 * static_cast<int>(gridDim.x);
  const int first0 = static_cast<int>(blockIdx.x) * 2;
  const int turns = first0 < tiles ? (tiles - 1 - first0) / stride + 1 : 0;
  float4* As = slots + wg * KC * 2 * 128;
  const int wt = static_cast<int>(threadIdx.x) % 128;
  auto load_chunk = [&](int c, int tile) {
    const long long r0 = static_cast<long long>(tile) * 64 + warp * 16 + g;
    const int col = 16 * c + 4 * t;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const long long r = r0 + 8 * h;
      const bool in = tile < tiles && col < k && r < m;
      const auto dst =
          static_cast<std::uint32_t>(__cvta_generic_to_shared(As + (c * 2 + h) * 128 + wt));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst),
                   "l"(in ? A + r * k + col : A), "r"(in ? 16 : 0));
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };

  int tile = first0 + wg;
#pragma unroll
  for (int c = 0; c < KC; ++c) load_chunk(c, tile);

  for (int turn = 0; turn < turns; ++turn, tile += stride) {
    if (PP && (wg == 1 || turn > 0)) named_sync(1 + wg);
    const bool live = tile < tiles;  // uniform per warpgroup
    float acc[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0.0f;
    if (live) {
      const int next = tile + stride;
#pragma unroll
      for (int c = 0; c < KC; ++c) {
        asm volatile("cp.async.wait_group %0;" ::"n"(KC - 1) : "memory");
        const float4 r0 = As[(c * 2) * 128 + wt];
        const float4 r1 = As[(c * 2 + 1) * 128 + wt];
        std::uint32_t ah[2][4], al[2][4];
        const float v0[4] = {r0.x, r0.y, r0.z, r0.w};
        const float v1[4] = {r1.x, r1.y, r1.z, r1.w};
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          split_a<FAST>(v0[2 * s], ah[s][0], al[s][0]);
          split_a<FAST>(v1[2 * s], ah[s][1], al[s][1]);
          split_a<FAST>(v0[2 * s + 1], ah[s][2], al[s][2]);
          split_a<FAST>(v1[2 * s + 1], ah[s][3], al[s][3]);
        }
        load_chunk(c, next);
        wgmma_fence();
#pragma unroll
        for (int s = 0; s < 2; ++s) {
          const std::uint32_t off = static_cast<std::uint32_t>((2 * c + s) * kGroups * 256);
          const std::uint64_t bh = b_desc(wh + off);
          const std::uint64_t bl = b_desc(wl + off);
          Wgmma<N>::run(acc, al[s], bh);
          Wgmma<N>::run(acc, ah[s], bl);
          Wgmma<N>::run(acc, ah[s], bh);
        }
        wgmma_commit();
        wgmma_wait<1>();
      }
    }
    if (PP && !(wg == 1 && turn == turns - 1)) named_arrive(2 - wg);
    wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < kAcc; ++i) fence_operand(acc[i]);
    if (live) fin(tile, acc, warp, g, t);
  }
}
#endif

/// The two-layer kernel with options: M = P1Only leaves the second product out (library tile
/// loop); otherwise PP / FAST as in tiles_v, and BIAS_SMEM reads the bias from shared memory
/// (copied once per block) instead of through the read-only cache.
template <int KC, Mode M, bool PP, bool FAST, bool BIAS_SMEM>
__global__ void __launch_bounds__(256, 1)
    pair_variant(int m, int n1, int n2, int k, const float* __restrict__ A,
                 const float* __restrict__ W1, const float* __restrict__ b1, int relu,
                 const float* __restrict__ W2, float* __restrict__ T) {
#ifdef SPINDLE_WGMMA_DEVICE
  constexpr int N1 = 128, N2 = 32, WGS = 2;
  constexpr int kp = KC * 16;
  extern __shared__ float4 smem4[];
  float* Wh = reinterpret_cast<float*>(smem4);
  float* Wl = Wh + kp * N1;
  float4* slots = reinterpret_cast<float4*>(Wl + kp * N1);
  float* Vh = reinterpret_cast<float*>(slots + WGS * KC * 2 * 128);
  float* Vl = Vh + N1 * N2;
  float* bias_s = Vl + N1 * N2;  // [N1] (BIAS_SMEM only; split_tf32_wgmma_mlp_smem has room)
  split_b<N1>(W1, k, n1, kp, Wh, Wl, WGS * 128, ChunkOrder{});
  split_b<N2>(W2, n1, n2, N1, Vh, Vl, WGS * 128, [](int p, int& q, int& pos) {
    q = p / 8;
    pos = (p % 2) * 4 + (p % 8) / 2;
  });
  if constexpr (BIAS_SMEM) {
    for (int c = threadIdx.x; c < N1; c += WGS * 128) {
      bias_s[c] = b1 != nullptr && c < n1 ? b1[c] : 0.0f;
    }
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  const std::uint32_t vh = static_cast<std::uint32_t>(__cvta_generic_to_shared(Vh));
  const std::uint32_t vl = static_cast<std::uint32_t>(__cvta_generic_to_shared(Vl));
  auto second = [&](int tile, float(&acc)[N1 / 2], int warp, int g, int t) {
    float acc2[N2 / 2];
    if constexpr (M == Mode::P1Only) {
#pragma unroll
      for (int i = 0; i < N2 / 2; ++i) acc2[i] = acc[i] + acc[i + 16] + acc[i + 32] + acc[i + 48];
    } else {
#pragma unroll
      for (int i = 0; i < N2 / 2; ++i) acc2[i] = 0.0f;
#pragma unroll
      for (int j = 0; j < N1 / 8; ++j) {
        float hv[4];
        float bias[2];
        if constexpr (BIAS_SMEM) {
          const float2 b = *reinterpret_cast<const float2*>(bias_s + 8 * j + 2 * t);
          bias[0] = b.x;
          bias[1] = b.y;
        }
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int col = 8 * j + 2 * t + e;
          if constexpr (!BIAS_SMEM) bias[e] = b1 != nullptr && col < n1 ? __ldg(b1 + col) : 0.0f;
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            float v = acc[4 * j + 2 * h + e] + bias[e];
            if (relu != 0) v = v > 0.0f ? v : 0.0f;
            hv[2 * h + e] = v;
          }
        }
        std::uint32_t ah[4], al[4];
        const int order[4] = {0, 2, 1, 3};  // (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)
#pragma unroll
        for (int q = 0; q < 4; ++q) split_a<FAST>(hv[order[q]], ah[q], al[q]);
        wgmma_fence();
        const std::uint32_t off = static_cast<std::uint32_t>(j * (N2 / 8) * 256);
        Wgmma<N2>::run(acc2, al, b_desc(vh + off));
        Wgmma<N2>::run(acc2, ah, b_desc(vl + off));
        Wgmma<N2>::run(acc2, ah, b_desc(vh + off));
      }
      wgmma_commit();
      wgmma_wait<0>();
#pragma unroll
      for (int i = 0; i < N2 / 2; ++i) fence_operand(acc2[i]);
    }
    store_tile<N2>(acc2, tile, warp, g, t, m, n2, T);
  };
  const auto wh = static_cast<std::uint32_t>(__cvta_generic_to_shared(Wh));
  const auto wl = static_cast<std::uint32_t>(__cvta_generic_to_shared(Wl));
  if constexpr (M == Mode::P1Only) {
    wgmma_tiles<N1, KC, WGS, false>(m, k, A, wh, wl, slots, second);
  } else {
    tiles_v<N1, KC, PP, FAST>(m, k, A, wh, wl, slots, second);
  }
#else
  (void)m, (void)n1, (void)n2, (void)k, (void)A, (void)W1, (void)b1, (void)relu, (void)W2, (void)T;
  __trap();
#endif
}

}  // namespace
}  // namespace spindle::detail::cuda

namespace sdc = spindle::detail::cuda;

namespace {

template <class F>
double median_ms(F&& f, int reps) {
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> v;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  long m = 4194304;
  int reps = 20;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i];
    if (f == "--m") m = std::atol(argv[i + 1]);
    if (f == "--reps") reps = std::atoi(argv[i + 1]);
    if (f == "--only") only = argv[i + 1];
  }
  const int k = 128, n1 = 128, n2 = 32;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s (%d SMs), m %ld, k %d, n1 %d, n2 %d, reps %d\n", prop.name,
              prop.multiProcessorCount, m, k, n1, n2, reps);

  std::vector<float> A(static_cast<std::size_t>(m) * k), W1(k * n1), b1(n1), W2(n1 * n2);
  {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : A) x = u(rng);
    std::uniform_real_distribution<float> w(-0.15f, 0.15f);
    for (auto& x : W1) x = w(rng);
    for (auto& x : b1) x = w(rng);
    for (auto& x : W2) x = w(rng);
  }
  float *dA, *dW1, *db1, *dW2, *dT, *dRef, *dH;
  CK(cudaMalloc(&dA, sizeof(float) * A.size()));
  CK(cudaMalloc(&dW1, sizeof(float) * W1.size()));
  CK(cudaMalloc(&db1, sizeof(float) * b1.size()));
  CK(cudaMalloc(&dW2, sizeof(float) * W2.size()));
  CK(cudaMalloc(&dT, sizeof(float) * m * n2));
  CK(cudaMalloc(&dRef, sizeof(float) * m * n2));
  CK(cudaMalloc(&dH, sizeof(float) * m * n1));
  CK(cudaMemcpy(dA, A.data(), sizeof(float) * A.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dW1, W1.data(), sizeof(float) * W1.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db1, b1.data(), sizeof(float) * b1.size(), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dW2, W2.data(), sizeof(float) * W2.size(), cudaMemcpyHostToDevice));

  const long tiles = (m + 63) / 64;
  const unsigned blocks =
      static_cast<unsigned>(std::min<long>((tiles + 1) / 2, prop.multiProcessorCount));
  const std::size_t smem = sdc::split_tf32_wgmma_mlp_smem(k);
  using Kern = void (*)(int, int, int, int, const float*, const float*, const float*, int,
                        const float*, float*);
  auto launch = [&](Kern kern, float* out) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int>(smem)));
    kern<<<blocks, 256, smem>>>(static_cast<int>(m), n1, n2, k, dA, dW1, db1, 1, dW2, out);
    CK(cudaGetLastError());
  };
  const Kern lib = sdc::split_tf32_wgmma_mlp_kernel(k);
  launch(lib, dRef);
  CK(cudaDeviceSynchronize());

  // double reference on sampled rows
  std::vector<float> row(n2);
  auto ref_err = [&](const float* dOut) {
    std::mt19937_64 rng(7);
    double worst = 0;
    for (int s = 0; s < 512; ++s) {
      const long i = static_cast<long>(rng() % static_cast<unsigned long>(m));
      CK(cudaMemcpy(row.data(), dOut + i * n2, sizeof(float) * n2, cudaMemcpyDeviceToHost));
      std::vector<double> h(n1);
      for (int j = 0; j < n1; ++j) {
        double v = b1[j];
        for (int q = 0; q < k; ++q) v += double(A[i * k + q]) * double(W1[q * n1 + j]);
        h[j] = v > 0 ? v : 0;
      }
      for (int c = 0; c < n2; ++c) {
        double ref = 0, mag = 0;
        for (int j = 0; j < n1; ++j) {
          ref += h[j] * W2[j * n2 + c];
          mag += std::fabs(h[j] * W2[j * n2 + c]);
        }
        const double e = std::fabs(row[c] - ref) / (mag > 0 ? mag : 1);
        if (!(e <= worst)) worst = e;
      }
    }
    return worst;
  };
  std::vector<float> hT(static_cast<std::size_t>(m) * n2), hR(hT.size());
  CK(cudaMemcpy(hR.data(), dRef, sizeof(float) * hR.size(), cudaMemcpyDeviceToHost));
  auto diff_lib = [&]() {
    CK(cudaMemcpy(hT.data(), dT, sizeof(float) * hT.size(), cudaMemcpyDeviceToHost));
    double d = 0;
    for (std::size_t i = 0; i < hT.size(); ++i) {
      const double e = std::fabs(double(hT[i]) - hR[i]);
      if (!(e <= d)) d = e;
    }
    return d;
  };
  std::printf("lib vs double: max rel err %.3g\n", ref_err(dRef));

  const double flop = 2.0 * m * k * n1 + 2.0 * m * n1 * n2;
  auto run = [&](const char* name, Kern kern, bool check) {
    if (!only.empty() && only != name) return;
    CK(cudaMemset(dT, 0xFF, sizeof(float) * m * n2));  // poison
    const double ms = median_ms([&] { launch(kern, dT); }, reps);
    std::printf("%-10s %8.3f ms  %6.1f TFLOP/s (FP32 work)", name, ms, flop / ms * 1e-9);
    if (check)
      std::printf("  max |diff| vs lib %.3g  rel err vs double %.3g", diff_lib(), ref_err(dT));
    std::printf("\n");
    std::fflush(stdout);
  };
  using sdc::Mode;
  for (int round = 0; round < 2; ++round) {
    run("lib", lib, true);
    run("p1only", &sdc::pair_variant<8, Mode::P1Only, false, false, false>, false);
    run("run23", &sdc::pair_variant<8, Mode::Full, false, false, false>, true);
    run("pingpong", &sdc::pair_variant<8, Mode::Full, true, false, false>, true);
    run("fast", &sdc::pair_variant<8, Mode::Full, false, true, false>, true);
    run("fastpp", &sdc::pair_variant<8, Mode::Full, true, true, false>, true);
    run("fastsb", &sdc::pair_variant<8, Mode::Full, false, true, true>, true);
    run("fastsbpp", &sdc::pair_variant<8, Mode::Full, true, true, true>, true);
  }
  if (only.empty() || only == "plain128") {
    const sdc::SplitKernel plain = sdc::split_tf32_wgmma_kernel(128, k, 2);
    const std::size_t s2 = sdc::split_tf32_wgmma_smem(k, 128, 2);
    CK(cudaFuncSetAttribute(plain, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            static_cast<int>(s2)));
    const double ms = median_ms(
        [&] {
          plain<<<blocks, 256, s2>>>(static_cast<int>(m), n1, k, dA, dW1, dH);
          CK(cudaGetLastError());
        },
        reps);
    std::printf("%-10s %8.3f ms  (A W1 alone, %.1f TFLOP/s)\n", "plain128", ms,
                2.0 * m * k * n1 / ms * 1e-9);
  }
  return 0;
}
