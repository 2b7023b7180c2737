// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record: claims come from
// `spindle bench gcn`): how much of GCN layer 1 + layer 2's transform a single fused kernel can
// take. GCN 128-128-32 spends, per inference on R-MAT 22 (H100, ops/cuda/mxm/NOTES.md run 16):
// GEMM X·W1 3.2 ms, SpMM N = 128 with bias and ReLU 7.7 ms, GEMM H1·W2 1.1 ms, SpMM N = 32 with
// bias 2.1 ms. The FP32 work of the two GEMMs (171 GFLOP) needs at least 2.6 ms of the H100's
// FP32 lanes, while the SpMM leaves them mostly idle waiting on gathers; so this harness times
// kernels that aggregate rows of Â and apply the dense products in the epilogue, per row, in a
// warp:
//   epi 0  Â·XW1 only (N = 128 written): the same row walk with no epilogue, for reference
//   epi 1  Z = ReLU(Â·XW1 + b1)·W2 (input XW1 from cuBLAS; writes N = 32): saves GEMM 2 and the
//          write and re-read of H1
//   epi 2  Z = ReLU((Â·X)·W1 + b1)·W2 (input X; writes N = 32): both GEMMs in the epilogue
// Rows of at most --long entries are walked by one warp each (4 gathers in flight per lane,
// float4 per lane); longer rows are cut into slices whose partial sums are added with float
// atomics into a buffer (not deterministic: a harness shortcut, the library adds in order) and
// finished by a second kernel with the same epilogue. Z is checked against the library's own
// layer-2 transform (gcn_inference_normalized's workspace: tmp[1] = H1·W2).
//
// Build (from the repository root, after the CUDA build in build/cuda):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/cuda/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/gcn_fused.cu build/cuda/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o gcn_fused
// Run: gcn_fused [--graph rmat22] [--reps 20] [--long 1024]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/bench/mxm_bench.cuh"
#include "spindle/algorithms/dense_gemm.hpp"
#include "spindle/algorithms/gcn.hpp"

using namespace spindle;
using spindle::bench::make_graph;
using spindle::bench::NamedGraph;

namespace {

constexpr int kF = 128;  // layer-1 width (input and output)
constexpr int kO = 32;   // layer-2 width
constexpr int kThreads = 512;

#define CK(x)                                                                                 \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

/// Shared memory: W1 as 128 rows of 32 float4 (epi 2), W2 as 128 x 32 floats, b1 as 32 float4.
template <int EPI>
constexpr int smem_bytes() {
  return (EPI == 2 ? kF * kF * 4 : 0) + (EPI >= 1 ? kF * kO * 4 + kF * 4 : 0);
}

template <int EPI>
__device__ void load_weights(float* sm, const float* W1, const float* W2, const float* b1) {
  if constexpr (EPI >= 1) {
    float* w1 = sm;
    float* w2 = sm + (EPI == 2 ? kF * kF : 0);
    float* b = w2 + kF * kO;
    if constexpr (EPI == 2) {
      for (int i = threadIdx.x; i < kF * kF; i += blockDim.x) w1[i] = W1[i];
    }
    for (int i = threadIdx.x; i < kF * kO; i += blockDim.x) w2[i] = W2[i];
    for (int i = threadIdx.x; i < kF; i += blockDim.x) b[i] = b1[i];
  }
  __syncthreads();
}

/// The row's aggregate h (lane owns columns 4 lane .. 4 lane + 3) through the epilogue into
/// out_row (128 floats for epi 0, 32 otherwise).
template <int EPI>
__device__ __forceinline__ void epilogue(float4 h, int lane, const float* sm, float* out_row) {
  if constexpr (EPI == 0) {
    reinterpret_cast<float4*>(out_row)[lane] = h;
  } else {
    const float4* w1 = reinterpret_cast<const float4*>(sm);  // [k][32] float4
    const float* w2 = sm + (EPI == 2 ? kF * kF : 0);         // [k][32]
    const float4* b = reinterpret_cast<const float4*>(w2 + kF * kO);
    float4 o = h;
    if constexpr (EPI == 2) {  // o = h·W1 (lane owns output columns 4 lane .. 4 lane + 3)
      o = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 4
      for (int src = 0; src < 32; ++src) {
        const float hk[4] = {__shfl_sync(0xffffffffu, h.x, src), __shfl_sync(0xffffffffu, h.y, src),
                             __shfl_sync(0xffffffffu, h.z, src),
                             __shfl_sync(0xffffffffu, h.w, src)};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float4 w = w1[(4 * src + q) * 32 + lane];
          o.x = fmaf(hk[q], w.x, o.x);
          o.y = fmaf(hk[q], w.y, o.y);
          o.z = fmaf(hk[q], w.z, o.z);
          o.w = fmaf(hk[q], w.w, o.w);
        }
      }
    }
    const float4 bb = b[lane];
    o.x = fmaxf(o.x + bb.x, 0.f);
    o.y = fmaxf(o.y + bb.y, 0.f);
    o.z = fmaxf(o.z + bb.z, 0.f);
    o.w = fmaxf(o.w + bb.w, 0.f);
    // z[lane] = sum_k o[k] W2[k][lane]
    float z = 0.f;
#pragma unroll 4
    for (int src = 0; src < 32; ++src) {
      const float ok[4] = {__shfl_sync(0xffffffffu, o.x, src), __shfl_sync(0xffffffffu, o.y, src),
                           __shfl_sync(0xffffffffu, o.z, src), __shfl_sync(0xffffffffu, o.w, src)};
#pragma unroll
      for (int q = 0; q < 4; ++q) z = fmaf(ok[q], w2[(4 * src + q) * kO + lane], z);
    }
    out_row[lane] = z;
  }
}

/// Sum of v·x[col] over entries [beg, end) of a row, 4 gathers in flight per lane.
__device__ __forceinline__ float4 walk(int beg, int end, const int* __restrict__ ci,
                                       const float* __restrict__ v, const float4* __restrict__ x,
                                       int lane) {
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  int e = beg;
  for (; e + 4 <= end; e += 4) {
    int c[4];
    float w[4];
    float4 g[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      c[u] = __ldg(ci + e + u);
      w[u] = __ldg(v + e + u);
    }
#pragma unroll
    for (int u = 0; u < 4; ++u) g[u] = __ldg(x + static_cast<long long>(c[u]) * 32 + lane);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      acc.x = fmaf(w[u], g[u].x, acc.x);
      acc.y = fmaf(w[u], g[u].y, acc.y);
      acc.z = fmaf(w[u], g[u].z, acc.z);
      acc.w = fmaf(w[u], g[u].w, acc.w);
    }
  }
  for (; e < end; ++e) {
    const float w = __ldg(v + e);
    const float4 g = __ldg(x + static_cast<long long>(__ldg(ci + e)) * 32 + lane);
    acc.x = fmaf(w, g.x, acc.x);
    acc.y = fmaf(w, g.y, acc.y);
    acc.z = fmaf(w, g.z, acc.z);
    acc.w = fmaf(w, g.w, acc.w);
  }
  return acc;
}

template <int EPI>
__global__ void __launch_bounds__(kThreads, 2)
    short_rows(int n, int long_limit, const int* __restrict__ rp, const int* __restrict__ ci,
               const float* __restrict__ v, const float4* __restrict__ x, const float* W1,
               const float* W2, const float* b1, float* out) {
  extern __shared__ float4 sm4[];
  float* sm = reinterpret_cast<float*>(sm4);
  load_weights<EPI>(sm, W1, W2, b1);
  const int lane = threadIdx.x & 31;
  const int warps = gridDim.x * (kThreads / 32);
  constexpr int kOut = EPI == 0 ? kF : kO;
  for (int r = blockIdx.x * (kThreads / 32) + threadIdx.x / 32; r < n; r += warps) {
    const int beg = __ldg(rp + r), end = __ldg(rp + r + 1);
    if (end - beg > long_limit) continue;
    epilogue<EPI>(walk(beg, end, ci, v, x, lane), lane, sm, out + static_cast<long long>(r) * kOut);
  }
}

struct Slice {
  int slot, beg, end;
};

__global__ void long_partial(const Slice* __restrict__ slices, int nslices,
                             const int* __restrict__ ci, const float* __restrict__ v,
                             const float4* __restrict__ x, float* hacc) {
  const int lane = threadIdx.x & 31;
  const int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (w >= nslices) return;
  const Slice s = slices[w];
  const float4 a = walk(s.beg, s.end, ci, v, x, lane);
  float* dst = hacc + static_cast<long long>(s.slot) * kF + 4 * lane;
  atomicAdd(dst + 0, a.x);
  atomicAdd(dst + 1, a.y);
  atomicAdd(dst + 2, a.z);
  atomicAdd(dst + 3, a.w);
}

template <int EPI>
__global__ void __launch_bounds__(kThreads, 2)
    long_finish(const int* __restrict__ long_rows, int nlong, const float* __restrict__ hacc,
                const float* W1, const float* W2, const float* b1, float* out) {
  extern __shared__ float4 sm4[];
  float* sm = reinterpret_cast<float*>(sm4);
  load_weights<EPI>(sm, W1, W2, b1);
  const int lane = threadIdx.x & 31;
  const int w = blockIdx.x * (kThreads / 32) + threadIdx.x / 32;
  if (w >= nlong) return;
  constexpr int kOut = EPI == 0 ? kF : kO;
  const float4 h = reinterpret_cast<const float4*>(hacc + static_cast<long long>(w) * kF)[lane];
  epilogue<EPI>(h, lane, sm, out + static_cast<long long>(long_rows[w]) * kOut);
}

double rel_l2(const std::vector<float>& a, const std::vector<float>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / std::max(den, 1e-300));
}

template <class T>
T* upload(const std::vector<T>& h) {
  T* d = nullptr;
  CK(cudaMalloc(&d, std::max<std::size_t>(h.size(), 1) * sizeof(T)));
  CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::string graph = "rmat22";
  int reps = 20, long_limit = 1024, slice = 512;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--graph") graph = argv[i + 1];
    if (a == "--reps") reps = std::stoi(argv[i + 1]);
    if (a == "--long") long_limit = std::stoi(argv[i + 1]);
    if (a == "--slice") slice = std::stoi(argv[i + 1]);
  }
  const NamedGraph ng = make_graph(graph);
  const Graph<std::int32_t, Pattern> A = ng.g.with_values<Pattern>();
  GcnOptions gpu;
  gpu.device = Device::Cuda;
  const Graph<std::int32_t, float> A_hat = gcn_normalize<float>(A, gpu);
  const GcnModel<float> model = glorot_model<float>(kF, {kF, kO}, 1);
  const DenseMatrix<float> X = random_features<float>(A.rows(), kF, 2);
  const int n = static_cast<int>(A_hat.rows());

  // The library's pipeline, timed whole, and its intermediate products as references.
  GcnWorkspace<float> ws;
  auto& ctx = detail::cuda::context();
  const std::vector<float> full =
      detail::cuda::time_runs([&] { gcn_inference_normalized(A_hat, X, model, ws, gpu); }, 2, reps);
  const double full_ms = detail::cuda::median(full);
  ctx.synchronize();
  const DenseMatrix<float>& xw1_m = ws.tmp[0];  // X·W1 (transform first on a tie)
  const DenseMatrix<float>& h1_m = ws.out[0];   // ReLU(Â·XW1 + b1)
  const DenseMatrix<float>& z_m = ws.tmp[1];    // H1·W2
  // The library's layer-1 pieces: layer 1 alone (GEMM X·W1, then the SpMM with bias and ReLU)
  // and the two GEMMs alone.
  GcnModel<float> first;
  first.weights = {model.weights[0]};
  first.biases = {model.biases[0]};
  GcnWorkspace<float> ws1;
  const double l1_ms = detail::cuda::median(detail::cuda::time_runs(
      [&] { gcn_inference_normalized(A_hat, X, first, ws1, gpu); }, 2, reps));
  DenseMatrix<float> g1, g2;
  const double g1_ms = detail::cuda::median(
      detail::cuda::time_runs([&] { gemm(g1, X, model.weights[0], Device::Cuda); }, 2, reps));
  const double g2_ms = detail::cuda::median(detail::cuda::time_runs(
      [&] { gemm(g2, ws.out[0], model.weights[1], Device::Cuda); }, 2, reps));
  ctx.synchronize();
  std::printf(
      "# gcn_fused on %s, n = %d, nnz(A_hat) = %lld\n# library: GCN %.3f ms per inference; layer 1 "
      "alone %.3f ms (GEMM X.W1 %.3f + SpMM N = 128 with bias, ReLU %.3f); GEMM H1.W2 %.3f ms\n",
      ng.name.c_str(), n, static_cast<long long>(A_hat.nnz()), full_ms, l1_ms, g1_ms, l1_ms - g1_ms,
      g2_ms);
  if (xw1_m.rows() != n || xw1_m.cols() != kF || z_m.cols() != kO) {
    std::fprintf(stderr, "unexpected workspace shapes (ordering changed?)\n");
    return 1;
  }
  const std::vector<float> xw1(xw1_m.data(), xw1_m.data() + static_cast<std::size_t>(n) * kF);
  const std::vector<float> h1(h1_m.data(), h1_m.data() + static_cast<std::size_t>(n) * kF);
  const std::vector<float> zref(z_m.data(), z_m.data() + static_cast<std::size_t>(n) * kO);
  std::vector<float> xh(X.data(), X.data() + static_cast<std::size_t>(n) * kF);

  // Device copies.
  const int* d_rp = upload(A_hat.row_ptr());
  const int* d_ci = upload(A_hat.col_idx());
  const float* d_v = upload(A_hat.values());
  const float* d_x = upload(xh);
  const float* d_xw1 = upload(xw1);
  const DenseMatrix<float>& W1m = model.weights[0];
  const DenseMatrix<float>& W2m = model.weights[1];
  const float* d_w1 = upload(std::vector<float>(W1m.data(), W1m.data() + kF * kF));
  const float* d_w2 = upload(std::vector<float>(W2m.data(), W2m.data() + kF * kO));
  const Vector<float>& b1v = model.biases[0];
  const float* d_b1 = upload(std::vector<float>(b1v.data(), b1v.data() + kF));

  // Long rows and their slices.
  std::vector<int> long_rows;
  std::vector<Slice> slices;
  long long long_entries = 0;
  for (int r = 0; r < n; ++r) {
    const int beg = A_hat.row_ptr()[r], end = A_hat.row_ptr()[r + 1];
    if (end - beg <= long_limit) continue;
    const int slot = static_cast<int>(long_rows.size());
    long_rows.push_back(r);
    long_entries += end - beg;
    for (int s = beg; s < end; s += slice) slices.push_back({slot, s, std::min(end, s + slice)});
  }
  std::printf("# rows over %d entries: %zu (%.1f%% of entries), %zu slices of %d\n", long_limit,
              long_rows.size(), 100.0 * long_entries / A_hat.nnz(), slices.size(), slice);
  const int* d_long = upload(long_rows);
  const Slice* d_slices = upload(slices);
  float* d_hacc = nullptr;
  CK(cudaMalloc(&d_hacc, std::max<std::size_t>(long_rows.size(), 1) * kF * sizeof(float)));
  float* d_out = nullptr;
  CK(cudaMalloc(&d_out, static_cast<std::size_t>(n) * kF * sizeof(float)));

  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const cudaStream_t s = ctx.stream;

  auto run = [&](auto epi_tag, const float* input) {
    constexpr int EPI = decltype(epi_tag)::value;
    constexpr int smem = smem_bytes<EPI>();
    if (smem > 48 * 1024) {
      CK(cudaFuncSetAttribute(short_rows<EPI>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
      CK(cudaFuncSetAttribute(long_finish<EPI>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    }
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, short_rows<EPI>, kThreads, smem));
    const float4* x4 = reinterpret_cast<const float4*>(input);
    auto once = [&] {
      if (!long_rows.empty()) {
        CK(cudaMemsetAsync(d_hacc, 0, long_rows.size() * kF * sizeof(float), s));
        const int blocks = static_cast<int>((slices.size() + 7) / 8);
        long_partial<<<blocks, 256, 0, s>>>(d_slices, static_cast<int>(slices.size()), d_ci, d_v,
                                            x4, d_hacc);
      }
      short_rows<EPI><<<sms * std::max(per_sm, 1), kThreads, smem, s>>>(
          n, long_limit, d_rp, d_ci, d_v, x4, d_w1, d_w2, d_b1, d_out);
      if (!long_rows.empty()) {
        const int blocks =
            static_cast<int>((long_rows.size() + kThreads / 32 - 1) / (kThreads / 32));
        long_finish<EPI><<<blocks, kThreads, smem, s>>>(d_long, static_cast<int>(long_rows.size()),
                                                        d_hacc, d_w1, d_w2, d_b1, d_out);
      }
    };
    CK(cudaMemsetAsync(d_out, 0xff, static_cast<std::size_t>(n) * kF * sizeof(float), s));  // NaN
    const double ms = detail::cuda::median(detail::cuda::time_runs(once, 1, reps));
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s));
    const int out_w = EPI == 0 ? kF : kO;
    std::vector<float> got(static_cast<std::size_t>(n) * out_w);
    CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double err = 0;
    if (EPI == 0) {  // Â·XW1 + b1, ReLU: the library's H1
      const Vector<float>& b = model.biases[0];
      for (std::size_t i = 0; i < got.size(); ++i) {
        got[i] = std::max(got[i] + b[static_cast<std::int64_t>(i % kF)], 0.f);
      }
      err = rel_l2(got, h1);
    } else {
      err = rel_l2(got, zref);
    }
    std::printf("epi %d: %.3f ms (%d blocks of %d per SM, %d B shared), rel L2 vs library %.3g",
                EPI, ms, per_sm, kThreads, smem, err);
    // What GCN would take with this kernel in place of the library's stages it covers.
    if (EPI == 0)
      std::printf("; the library's SpMM N = 128 with its epilogue: %.3f ms\n", l1_ms - g1_ms);
    if (EPI == 1) {
      std::printf("; GCN with it: %.3f ms (replaces SpMM N = 128 and GEMM H1.W2)\n",
                  full_ms - (l1_ms - g1_ms) - g2_ms + ms);
    }
    if (EPI == 2) {
      std::printf("; GCN with it: %.3f ms (replaces both GEMMs and SpMM N = 128)\n",
                  full_ms - l1_ms - g2_ms + ms);
    }
  };
  run(std::integral_constant<int, 0>{}, d_xw1);
  run(std::integral_constant<int, 1>{}, d_xw1);
  run(std::integral_constant<int, 2>{}, d_x);
  return 0;
}
