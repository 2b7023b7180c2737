// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): can L2 keep the hot rows of
// B for SpMM at N = 128 on R-MAT 22? ncu on the library's group form (ops/cuda/mxm/NOTES.md, run
// 19) found the pass DRAM-bound: 19 GB read for 33.4 GB of gathers, L2 hit rate 40.5%, while the
// 64 K columns of highest in-degree take 63% of the entries and their rows of B (33.5 MB) would fit
// the 50 MB L2. This harness times one simple SpMM kernel (a warp per slice of at most 1024
// entries of a row, a float4 of B per lane, 4 gathers in flight; slices of long rows add with
// float atomics into a zeroed C: a harness shortcut) on the same product in four layouts:
//   orig      columns and B in the generator's order, plain loads
//   relabel   columns relabelled by in-degree (hot first) and B's rows permuted to match
//   hints H   relabelled; gathers of rows < H with an L2 evict_last policy, the rest evict_first
//   window H  relabelled; a persisting access-policy window over B's first H rows (the
//             persisting L2 limit raised to the window), plain loads
// Every variant's C is compared with orig's (after undoing the permutation).
//
// Build (from the repository root, after the CUDA build in build/cuda):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/cuda/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/l2_hot_rows.cu build/cuda/libspindle.a -lcusparse -lcublas
//     -lcublasLt -lopenblas -o l2_hot_rows
// Run: l2_hot_rows [--graph rmat22] [--reps 10]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "apps/bench/mxm_bench.cuh"
#include "ops/cuda/common/l2_policy.cuh"

using namespace spindle;

namespace {

constexpr int kN = 128;  // dense width: 32 lanes x float4
constexpr int kSlice = 1024;
constexpr int kThreads = 256;

struct Item {
  int row, begin, end, slot;  ///< slot -1: the whole row; else its row of the long-row buffer
};

__device__ __forceinline__ float4 ld_policy(const float4* p, unsigned long long pol) {
  float4 v;
  asm volatile("ld.global.nc.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(pol));
  return v;
}

/// MODE 0: plain loads; 1: evict_last below `hot`, evict_first above; 2: an index with the top
/// bit set reads that row of the hot copy bh, others B's row.
template <int MODE>
__global__ void __launch_bounds__(kThreads)
    spmm_items(const Item* __restrict__ items, long long nitems, const int* __restrict__ ci,
               const float* __restrict__ va, const float4* __restrict__ b, float4* __restrict__ c,
               float4* __restrict__ lng, int hot, const float4* __restrict__ bh) {
  const long long w = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  if (w >= nitems) return;
  const Item it = items[w];
  const unsigned long long pl = spindle::detail::cuda::l2_policy_evict_last();
  const unsigned long long pf = spindle::detail::cuda::l2_policy_evict_first();
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int t0 = it.begin; t0 < it.end; t0 += 32) {
    const int cnt = min(32, it.end - t0);
    const int myj = lane < cnt ? __ldg(ci + t0 + lane) : 0;
    const float mya = lane < cnt ? __ldg(va + t0 + lane) : 0.f;
    for (int k = 0; k < cnt; k += 4) {
      float4 bv[4];
      float av[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int j = __shfl_sync(0xffffffffu, myj, (k + u) & 31);
        av[u] = __shfl_sync(0xffffffffu, mya, (k + u) & 31);
        if (k + u < cnt) {
          const float4* p = b + static_cast<long long>(j) * 32 + lane;
          if constexpr (MODE == 2) {
            if (j < 0) p = bh + static_cast<long long>(j & 0x7fffffff) * 32 + lane;
            bv[u] = __ldg(p);
          } else if constexpr (MODE == 1) {
            bv[u] = ld_policy(p, j < hot ? pl : pf);
          } else {
            bv[u] = __ldg(p);
          }
        } else {
          bv[u] = make_float4(0.f, 0.f, 0.f, 0.f);
          av[u] = 0.f;
        }
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        acc.x = fmaf(av[u], bv[u].x, acc.x);
        acc.y = fmaf(av[u], bv[u].y, acc.y);
        acc.z = fmaf(av[u], bv[u].z, acc.z);
        acc.w = fmaf(av[u], bv[u].w, acc.w);
      }
    }
  }
  if (it.slot < 0) {
    c[static_cast<long long>(it.row) * 32 + lane] = acc;
  } else {
    float4* out = lng + static_cast<long long>(it.slot) * 32 + lane;
    atomicAdd(&out->x, acc.x);
    atomicAdd(&out->y, acc.y);
    atomicAdd(&out->z, acc.z);
    atomicAdd(&out->w, acc.w);
  }
}

/// The hot copy: row s of bh is row order[s] of B.
__global__ void copy_hot(const int* __restrict__ order, int h, const float4* __restrict__ b,
                         float4* __restrict__ bh) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<long long>(h) * 32)
    bh[i] = b[static_cast<long long>(order[i >> 5]) * 32 + (i & 31)];
}

/// Long rows: their slices' sums from the long-row buffer into C.
__global__ void finish_long(const int* __restrict__ rows, int count, const float4* __restrict__ lng,
                            float4* __restrict__ c) {
  const int i = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (i < count)
    c[static_cast<long long>(rows[i]) * 32 + (threadIdx.x & 31)] =
        lng[i * 32LL + (threadIdx.x & 31)];
}

template <class T>
T* upload(const std::vector<T>& v) {
  T* d = nullptr;
  SPINDLE_CUDA_CHECK(cudaMalloc(&d, v.size() * sizeof(T)));
  SPINDLE_CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec = "rmat22";
  int reps = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--graph") spec = argv[i + 1];
    if (a == "--reps") reps = std::stoi(argv[i + 1]);
  }
  const bench::NamedGraph ng = bench::make_graph(spec);
  const auto& A = ng.g;
  const int n = A.rows();
  const long long nnz = A.nnz();
  const std::vector<int>& rp = A.row_ptr();
  const std::vector<int>& ci = A.col_idx();
  const std::vector<float>& va = A.values();
  // In-degree order: newc[j] is j's rank (hot first, ties by id).
  std::vector<long long> indeg(A.cols(), 0);
  for (int j : ci) ++indeg[j];
  std::vector<int> order(A.cols());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return indeg[x] > indeg[y]; });
  std::vector<int> newc(A.cols());
  for (int r = 0; r < A.cols(); ++r) newc[order[r]] = r;
  std::vector<int> ci2(ci.size());
  for (std::size_t t = 0; t < ci.size(); ++t) ci2[t] = newc[ci[t]];
  for (long long h : {16384LL, 32768LL, 65536LL, 98304LL, 131072LL}) {
    long long s = 0;
    for (long long r = 0; r < h && r < A.cols(); ++r) s += indeg[order[r]];
    std::printf("# hottest %lld columns: %.1f%% of entries, %.1f MB of B\n", h, 100.0 * s / nnz,
                h * kN * 4 / 1e6);
  }
  std::vector<Item> items;
  std::vector<int> long_rows;
  for (int r = 0; r < n; ++r) {
    const int b = rp[r], e = rp[r + 1];
    if (e - b <= kSlice) {
      items.push_back({r, b, e, -1});
    } else {
      const int slot = static_cast<int>(long_rows.size());
      long_rows.push_back(r);
      for (int s = b; s < e; s += kSlice) items.push_back({r, s, std::min(e, s + kSlice), slot});
    }
  }
  std::vector<float> B(static_cast<std::size_t>(A.cols()) * kN), B2(B.size());
  for (std::size_t i = 0; i < B.size(); ++i)
    B[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.f - 1.f;
  for (int j = 0; j < A.cols(); ++j) {
    std::copy_n(B.begin() + static_cast<std::size_t>(j) * kN, kN,
                B2.begin() + static_cast<std::size_t>(newc[j]) * kN);
  }
  Item* d_items = upload(items);
  int* d_ci = upload(ci);
  int* d_ci2 = upload(ci2);
  float* d_va = upload(va);
  float4* d_b = reinterpret_cast<float4*>(upload(B));
  float4* d_b2 = reinterpret_cast<float4*>(upload(B2));
  int* d_long = upload(long_rows);
  const int nlong = static_cast<int>(long_rows.size());
  float4* d_lng = nullptr;
  const std::size_t lbytes = std::max<std::size_t>(1, long_rows.size()) * kN * 4;
  SPINDLE_CUDA_CHECK(cudaMalloc(&d_lng, lbytes));
  float4* d_c = nullptr;
  const std::size_t cbytes = static_cast<std::size_t>(n) * kN * 4;
  SPINDLE_CUDA_CHECK(cudaMalloc(&d_c, cbytes));
  cudaStream_t st;
  SPINDLE_CUDA_CHECK(cudaStreamCreate(&st));
  cudaDeviceProp prop;
  SPINDLE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf(
      "# %s on %s: n %d, nnz %lld, items %zu, long rows %d, L2 %d MB, persisting max %d MB\n",
      spec.c_str(), prop.name, n, nnz, items.size(), nlong, prop.l2CacheSize >> 20,
      prop.persistingL2CacheMaxSize >> 20);
  const long long nitems = static_cast<long long>(items.size());
  const unsigned grid = static_cast<unsigned>((nitems * 32 + kThreads - 1) / kThreads);
  std::vector<float> ref, got(static_cast<std::size_t>(n) * kN);
  int* d_order = upload(order);
  int* d_ci3 = nullptr;  // mode 2: hot columns as (slot | top bit), others unchanged
  float4* d_bh = nullptr;
  auto run = [&](const char* name, int mode, bool relabel, int hot) {
    auto once = [&] {
      SPINDLE_CUDA_CHECK(cudaMemsetAsync(d_lng, 0, lbytes, st));
      if (mode == 2) {
        copy_hot<<<static_cast<unsigned>((hot * 32LL + 255) / 256), 256, 0, st>>>(d_order, hot, d_b,
                                                                                  d_bh);
        spmm_items<2>
            <<<grid, kThreads, 0, st>>>(d_items, nitems, d_ci3, d_va, d_b, d_c, d_lng, hot, d_bh);
      } else if (mode == 1) {
        spmm_items<1><<<grid, kThreads, 0, st>>>(d_items, nitems, relabel ? d_ci2 : d_ci, d_va,
                                                 relabel ? d_b2 : d_b, d_c, d_lng, hot, nullptr);
      } else {
        spmm_items<0><<<grid, kThreads, 0, st>>>(d_items, nitems, relabel ? d_ci2 : d_ci, d_va,
                                                 relabel ? d_b2 : d_b, d_c, d_lng, hot, nullptr);
      }
      if (nlong > 0)
        finish_long<<<(nlong * 32 + 255) / 256, 256, 0, st>>>(d_long, nlong, d_lng, d_c);
    };
    once();
    SPINDLE_CUDA_CHECK(cudaStreamSynchronize(st));
    SPINDLE_CUDA_CHECK(cudaGetLastError());
    SPINDLE_CUDA_CHECK(cudaMemcpy(got.data(), d_c, cbytes, cudaMemcpyDeviceToHost));
    if (ref.empty()) {  // orig against a double-precision CPU product on every 997th row
      ref = got;
      double worst = 0;
      for (int r = 0; r < n; r += 997) {
        for (int q = 0; q < kN; ++q) {
          double x = 0;
          for (int t = rp[r]; t < rp[r + 1]; ++t)
            x += static_cast<double>(va[t]) * B[static_cast<std::size_t>(ci[t]) * kN + q];
          const double g = got[static_cast<std::size_t>(r) * kN + q];
          worst = std::max(worst, std::abs(g - x) / (1.0 + std::abs(x)));
        }
      }
      std::printf("# orig against the CPU on every 997th row: worst error %.2e\n", worst);
    }
    SPINDLE_CUDA_CHECK(
        cudaMemsetAsync(d_c, 0xff, cbytes, st));  // poison: the timed runs must write all of C
    cudaEvent_t e0, e1;
    SPINDLE_CUDA_CHECK(cudaEventCreate(&e0));
    SPINDLE_CUDA_CHECK(cudaEventCreate(&e1));
    std::vector<float> ms;
    for (int r = 0; r < reps; ++r) {
      SPINDLE_CUDA_CHECK(cudaEventRecord(e0, st));
      once();
      SPINDLE_CUDA_CHECK(cudaEventRecord(e1, st));
      SPINDLE_CUDA_CHECK(cudaEventSynchronize(e1));
      float t = 0;
      SPINDLE_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    SPINDLE_CUDA_CHECK(cudaMemcpy(got.data(), d_c, cbytes, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      num += (got[i] - ref[i]) * static_cast<double>(got[i] - ref[i]);
      den += static_cast<double>(ref[i]) * ref[i];
    }
    std::printf("RESULT %-12s H %6d: %.3f ms (median of %d, min %.3f); rel L2 vs orig %.2e\n", name,
                hot, ms[ms.size() / 2], reps, ms[0], std::sqrt(num / den));
  };
  // C is in row order in every layout (rows are not permuted), so results compare directly; the
  // reference is orig's first (untimed) run, and each variant is checked on its last timed one.
  run("orig", 0, false, 0);
  run("relabel", 0, true, 0);
  for (int h : {32768, 65536, 98304}) run("hints", 1, true, h);
  // A persisting window over `base` (bytes), run, then the window and the persisting lines cleared.
  auto with_window = [&](const void* base, std::size_t bytes, const char* name, int mode, int h) {
    const std::size_t lim = std::min<std::size_t>(bytes, prop.persistingL2CacheMaxSize);
    SPINDLE_CUDA_CHECK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, lim));
    cudaStreamAttrValue attr{};
    attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
    attr.accessPolicyWindow.num_bytes =
        std::min<std::size_t>(bytes, prop.accessPolicyMaxWindowSize);
    attr.accessPolicyWindow.hitRatio = std::min(1.0f, static_cast<float>(lim) / bytes);
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    SPINDLE_CUDA_CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
    run(name, mode, true, h);
    attr.accessPolicyWindow.num_bytes = 0;
    SPINDLE_CUDA_CHECK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
    SPINDLE_CUDA_CHECK(cudaCtxResetPersistingL2Cache());
  };
  for (int h : {49152, 57344, 65536, 98304}) {
    with_window(d_b2, static_cast<std::size_t>(h) * kN * 4, "window", 0, h);
  }
  // The hot copy: B in the generator's order plus a copy of its H hottest rows (made inside each
  // timed run) under the window; only the column indices of the hot columns change.
  std::vector<int> ci3(ci.size());
  SPINDLE_CUDA_CHECK(cudaMalloc(&d_ci3, ci3.size() * sizeof(int)));
  SPINDLE_CUDA_CHECK(cudaMalloc(&d_bh, static_cast<std::size_t>(98304) * kN * 4));
  for (int h : {49152, 57344, 65536}) {
    for (std::size_t t = 0; t < ci.size(); ++t) {
      const int r = newc[ci[t]];
      ci3[t] = r < h ? static_cast<int>(static_cast<unsigned>(r) | 0x80000000u) : ci[t];
    }
    SPINDLE_CUDA_CHECK(
        cudaMemcpy(d_ci3, ci3.data(), ci3.size() * sizeof(int), cudaMemcpyHostToDevice));
    run("hotcopy", 2, false, h);
    with_window(d_bh, static_cast<std::size_t>(h) * kN * 4, "hotcopy+win", 2, h);
  }
  return 0;
}
