// SPDX-License-Identifier: Apache-2.0
// Exploration harness (not built by CMake, not a benchmark of record): does propagation blocking
// beat the L2-sector bound of the warp form on skewed graphs?
//
// The warp form (ops/cuda/mxv/row_block_warp.cuh) keeps the hottest H relabelled columns of u in
// shared memory and gathers the rest ("cold") from L2: one 32-byte sector per 4-byte value. On
// R-MAT 22 those cold gathers are ~30 M sectors, most of the kernel's L2 traffic (NOTES.md). Here
// the cold entries are instead expanded ahead of the product:
//   1. expand: cold columns are cut into chunks (consecutive relabelled ids); a block loads its
//      chunk's slice of u into shared memory and writes u(j) for each of the chunk's entries into
//      v, at the entry's slot in its row bin. Slots of one (chunk, bin) pair are consecutive, so
//      the writes are runs, not single sectors;
//   2. product: the warp form's tasks are grouped into bins (consecutive tasks with at most EB
//      cold entries). A persistent block copies a bin's v region into shared memory (cp.async,
//      double-buffered) and runs the bin's tasks; each entry carries a 16-bit code: a hot column
//      (read from shared u) or a position in the bin's v region. The index stream shrinks from 4
//      to 2 bytes per entry as a side effect.
// Compared in one process with cuSPARSE, the library's mxv (planner's pick) and an in-harness warp
// form without binning (same code, cold gathers from L2). Results checked against a double host
// product.
//
// Build (from the repository root, after a build in build/test for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/test/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/binned.cu build/test/libspindle.a -lcusparse -lcublas -lcublasLt
//     -lopenblas -o binned
// Run: ./binned [scale] [--reps N]
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include "ops/cuda/mxv/row_block_warp_tasks.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"
#include "spindle/ops/mxv.hpp"

using namespace spindle;
using spindle::detail::cuda::build_row_block_warps;
using spindle::detail::cuda::kRowBlockPiece;
using spindle::detail::cuda::kRowBlockRows;
using spindle::detail::cuda::kRowBlockSingle;
using spindle::detail::cuda::RowBlockDesc;
using spindle::detail::cuda::RowBlockLong;
using spindle::detail::cuda::RowBlocks;

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)
#define CS(x)                                                              \
  do {                                                                     \
    cusparseStatus_t s_ = (x);                                             \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                   \
      fprintf(stderr, "%s:%d cusparse %d\n", __FILE__, __LINE__, (int)s_); \
      exit(1);                                                             \
    }                                                                      \
  } while (0)

template <class T>
T* dalloc(size_t n) {
  T* p;
  CK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T)));
  return p;
}
template <class T>
T* upload(const std::vector<T>& v) {
  T* p = dalloc<T>(v.size());
  CK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

constexpr int kWarps = 32;  // persistent 1024-thread blocks, one per SM
constexpr int kNB = 256;    // entries per warp task (8 per lane)
constexpr int kP = kNB / 32;

__device__ __forceinline__ float ld_cold(const float* p) {
  float r;
  asm volatile("ld.global.nc.L1::no_allocate.f32 %0, [%1];" : "=f"(r) : "l"(p));
  return r;
}

// One warp task: products of its entries, then single row / piece / runs of rows.
template <class Term>
__device__ __forceinline__ void run_task(const RowBlockDesc& d, const float (&v)[kP],
                                         const int* __restrict__ rp, float* __restrict__ stage,
                                         float* __restrict__ y, float* __restrict__ partial,
                                         int lane) {
  if (d.kind != kRowBlockRows) {
    float s = 0.f;
#pragma unroll
    for (int j = 0; j < kP; ++j) s += v[j];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) {
      if (d.kind == kRowBlockSingle)
        y[d.r0] = s;
      else
        partial[d.slot] = s;
    }
    return;
  }
#pragma unroll
  for (int j = 0; j < kP; ++j) stage[j * 32 + lane] = v[j];
  __syncwarp();
  const int lg = d.slot, lanes = 1 << lg, groups = 32 >> lg, g = lane >> lg, l = lane & (lanes - 1);
  for (int base = 0; base < d.rows; base += groups) {
    const int rr = base + g;
    float s = 0.f;
    if (rr < d.rows) {
      const int b = __ldg(rp + d.r0 + rr) - static_cast<int>(d.k0);
      const int e = __ldg(rp + d.r0 + rr + 1) - static_cast<int>(d.k0);
      for (int t = b + l; t < e; t += lanes) s += stage[t];
    }
    for (int off = lanes >> 1; off > 0; off >>= 1)
      s += __shfl_down_sync(0xffffffffu, s, off, lanes);
    if (l == 0 && rr < d.rows) y[d.r0 + rr] = s;
  }
  __syncwarp();
}

struct Dummy {};

// Baseline: the warp form without prefetch, hot columns from shared memory, cold from L2.
template <bool kVal>
__global__ void __launch_bounds__(kWarps * 32, 1)
    plain_kernel(const int* __restrict__ rp, const int* __restrict__ ci,
                 const float* __restrict__ val, const float* __restrict__ x,
                 const RowBlockDesc* __restrict__ desc, int tasks, float* __restrict__ y,
                 float* __restrict__ partial, int H) {
  extern __shared__ __align__(16) float smem[];
  float* sx = smem;
  float* stage_all = smem + H;
  for (int j = threadIdx.x; j < H; j += blockDim.x) sx[j] = __ldg(x + j);
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* stage = stage_all + warp * kNB;
  for (int t = blockIdx.x * kWarps + warp; t < tasks; t += gridDim.x * kWarps) {
    const RowBlockDesc d = desc[t];
    float v[kP];
    int c[kP];
    float m[kP];
#pragma unroll
    for (int j = 0; j < kP; ++j) {
      const int i = j * 32 + lane;
      c[j] = i < d.nk ? __ldcs(ci + d.k0 + i) : 0;
      m[j] = kVal && i < d.nk ? __ldcs(val + d.k0 + i) : 1.f;
    }
#pragma unroll
    for (int j = 0; j < kP; ++j) {
      const float hot = sx[c[j] < H ? c[j] : 0];
      float xv = 0.f;
      if (j * 32 + lane < d.nk && c[j] >= H) xv = ld_cold(x + c[j]);
      xv = c[j] < H ? hot : xv;
      v[j] = j * 32 + lane < d.nk ? m[j] * xv : 0.f;
    }
    run_task<Dummy>(d, v, rp, stage, y, partial, lane);
  }
}

// 1. expand: v[dest[q]] = x[c0 + lcol[q]] over a chunk's entries (block per chunk).
__global__ void __launch_bounds__(256)
    expand_kernel(const float* __restrict__ x, const int* __restrict__ chunk_q0,
                  const int* __restrict__ chunk_c0, const int* __restrict__ chunk_c1,
                  const std::uint16_t* __restrict__ lcol, const int* __restrict__ dest,
                  float* __restrict__ v) {
  extern __shared__ __align__(16) float seg[];
  const int k = blockIdx.x;
  const int q0 = chunk_q0[k], q1 = chunk_q0[k + 1], c0 = chunk_c0[k], c1 = chunk_c1[k];
  for (int j = threadIdx.x; j < c1 - c0; j += blockDim.x) seg[j] = __ldg(x + c0 + j);
  __syncthreads();
  for (int q = q0 + threadIdx.x; q < q1; q += blockDim.x)
    v[__ldcs(dest + q)] = seg[__ldcs(lcol + q)];
}

// Diagnostic: the same reads and gathers, v written in expand order (contiguous, no scatter).
__global__ void __launch_bounds__(256)
    expand_contig_kernel(const float* __restrict__ x, const int* __restrict__ chunk_q0,
                         const int* __restrict__ chunk_c0, const int* __restrict__ chunk_c1,
                         const std::uint16_t* __restrict__ lcol, const int* __restrict__ dest,
                         float* __restrict__ v) {
  extern __shared__ __align__(16) float seg[];
  const int k = blockIdx.x;
  const int q0 = chunk_q0[k], q1 = chunk_q0[k + 1], c0 = chunk_c0[k], c1 = chunk_c1[k];
  for (int j = threadIdx.x; j < c1 - c0; j += blockDim.x) seg[j] = __ldg(x + c0 + j);
  __syncthreads();
  for (int q = q0 + threadIdx.x; q < q1; q += blockDim.x)
    v[q] = seg[__ldcs(lcol + q)] + 0.f * __int_as_float(__ldcs(dest + q));
}

// 2. product over bins: persistent, bin regions of v double-buffered in shared memory.
template <bool kVal>
__global__ void __launch_bounds__(kWarps * 32, 1)
    binned_kernel(const int* __restrict__ rp, const std::uint16_t* __restrict__ code,
                  const float* __restrict__ val, const float* __restrict__ x,
                  const RowBlockDesc* __restrict__ desc, const int* __restrict__ bin_t0,
                  const int* __restrict__ bin_v0, int bins, const float* __restrict__ vv,
                  float* __restrict__ y, float* __restrict__ partial, int H, int EB) {
  extern __shared__ __align__(16) float smem[];
  float* sx = smem;
  float* buf0 = smem + H;
  float* buf1 = buf0 + EB;
  float* stage_all = buf1 + EB;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  float* stage = stage_all + warp * kNB;
  auto fetch = [&](int b, float* dst) {
    const int a0 = bin_v0[b], a1 = bin_v0[b + 1];  // multiples of 4
    for (int i = 4 * threadIdx.x; i < a1 - a0; i += 4 * blockDim.x)
      __pipeline_memcpy_async(dst + i, vv + a0 + i, 16);
  };
  int b = blockIdx.x;
  if (b < bins) fetch(b, buf0);
  __pipeline_commit();
  for (int j = threadIdx.x; j < H; j += blockDim.x) sx[j] = __ldg(x + j);
  for (int it = 0; b < bins; ++it, b += gridDim.x) {
    const int nb = b + gridDim.x;
    if (nb < bins) fetch(nb, (it & 1) ? buf0 : buf1);
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    const float* sv = (it & 1) ? buf1 : buf0;
    const int t1 = bin_t0[b + 1];
    for (int t = bin_t0[b] + warp; t < t1; t += kWarps) {
      const RowBlockDesc d = desc[t];
      std::uint16_t c[kP];
      float m[kP], v[kP];
#pragma unroll
      for (int j = 0; j < kP; ++j) {
        const int i = j * 32 + lane;
        c[j] = i < d.nk ? __ldcs(code + d.k0 + i) : std::uint16_t(0);
        m[j] = kVal && i < d.nk ? __ldcs(val + d.k0 + i) : 1.f;
      }
#pragma unroll
      for (int j = 0; j < kP; ++j) {
        const float tv = (c[j] & 0x8000) ? sv[c[j] & 0x7fff] : sx[c[j]];
        v[j] = j * 32 + lane < d.nk ? m[j] * tv : 0.f;
      }
      run_task<Dummy>(d, v, rp, stage, y, partial, lane);
    }
    __syncthreads();
  }
}

__global__ void long_kernel(const RowBlockLong* __restrict__ longs, int n_long,
                            const float* __restrict__ partial, float* __restrict__ y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n_long) return;
  const RowBlockLong l = longs[i];
  float s = partial[l.first];
  for (std::int64_t p = 1; p < l.count; ++p) s += partial[l.first + p];
  y[l.row] = s;
}

__global__ void poison(float* p, long long n) {
  const long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) p[i] = __int_as_float(0x7fc00001);
}

// ------------------------------------------------------------------ timing
int g_reps = 30;
template <class F>
double time_ms(F&& f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < g_reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}
// Wall clock around batches of calls (the library runs on its own stream).
template <class F>
double wall_ms(F&& f) {
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20; ++i) f();
    CK(cudaDeviceSynchronize());
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() /
        20);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

double worst_err(const float* ydev, const std::vector<double>& ref) {
  std::vector<float> y(ref.size());
  CK(cudaMemcpy(y.data(), ydev, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double e = std::fabs(y[i] - ref[i]) / std::max(1e-6, std::fabs(ref[i]));
    if (!(e <= worst)) worst = std::isnan(e) ? 1e30 : std::max(worst, e);
  }
  return worst;
}

// ------------------------------------------------------------------ layout
struct Binned {
  int bins = 0, chunks = 0;
  long long cold = 0, vlen = 0;
  std::vector<std::uint16_t> code;
  std::vector<int> bin_t0, bin_v0, chunk_q0, chunk_c0, chunk_c1, dest;
  std::vector<std::uint16_t> lcol;
};

// H hot columns; bins: consecutive tasks with at most EB cold entries and TB entries in all;
// chunks: consecutive cold columns with at most EC entries and CW columns.
Binned build_binned(int n, const std::vector<int>& rp, const std::vector<int>& cr,
                    const std::vector<RowBlockDesc>& desc, const std::vector<int>& coldeg, int H,
                    int EB, long long TB, int EC, int CW) {
  Binned B;
  const long long nnz = cr.size();
  B.code.assign(nnz, 0);
  // chunks of cold columns
  std::vector<int> chunk_of(n, -1);
  {
    int c = H;
    while (c < n && coldeg[c] > 0) {
      const int c0 = c;
      long long e = 0;
      while (c < n && coldeg[c] > 0 && c - c0 < CW && e + coldeg[c] <= EC) e += coldeg[c++];
      if (c == c0) {
        fprintf(stderr, "column %d: %d entries > EC\n", c, coldeg[c]);
        exit(1);
      }
      for (int j = c0; j < c; ++j) chunk_of[j] = B.chunks;
      B.chunk_c0.push_back(c0);
      B.chunk_c1.push_back(c);
      ++B.chunks;
    }
  }
  // bins of tasks
  const int tasks = static_cast<int>(desc.size());
  std::vector<long long> tcold(tasks);
  for (int t = 0; t < tasks; ++t) {
    long long c = 0;
    for (long long k = desc[t].k0; k < desc[t].k0 + desc[t].nk; ++k) c += cr[k] >= H;
    tcold[t] = c;
  }
  B.bin_t0.push_back(0);
  B.bin_v0.push_back(0);
  {
    int t = 0;
    while (t < tasks) {
      long long c = 0, e = 0;
      const int t0 = t;
      while (t < tasks && (t == t0 || (c + tcold[t] <= EB && e + desc[t].nk <= TB))) {
        c += tcold[t];
        e += desc[t].nk;
        ++t;
      }
      B.bin_t0.push_back(t);
      B.bin_v0.push_back(B.bin_v0.back() + static_cast<int>((c + 7) / 8 * 8));
      B.cold += c;
      ++B.bins;
    }
  }
  B.vlen = B.bin_v0.back();
  // positions within bins: cold entries ordered by (chunk, column, entry)
  struct CE {
    int chunk, col;
    long long k;
  };
  std::vector<long long> dest_of(nnz, -1);
  std::vector<long long> per_chunk(B.chunks + 1, 0);
  std::vector<CE> ce;
  for (int b = 0; b < B.bins; ++b) {
    ce.clear();
    const long long k0 = desc[B.bin_t0[b]].k0;
    const RowBlockDesc& dl = desc[B.bin_t0[b + 1] - 1];
    const long long k1 = dl.k0 + dl.nk;
    for (long long k = k0; k < k1; ++k)
      if (cr[k] >= H) ce.push_back({chunk_of[cr[k]], cr[k], k});
    std::sort(ce.begin(), ce.end(), [](const CE& a, const CE& b) {
      return a.chunk != b.chunk ? a.chunk < b.chunk : a.col != b.col ? a.col < b.col : a.k < b.k;
    });
    for (size_t r = 0; r < ce.size(); ++r) {
      B.code[ce[r].k] = static_cast<std::uint16_t>(0x8000 | r);
      dest_of[ce[r].k] = B.bin_v0[b] + static_cast<long long>(r);
      per_chunk[ce[r].chunk + 1]++;
    }
  }
  for (long long k = 0; k < nnz; ++k)
    if (cr[k] < H) B.code[k] = static_cast<std::uint16_t>(cr[k]);
  // expand order: by chunk, then destination (a counting sort over destinations in order)
  for (int c = 0; c < B.chunks; ++c) per_chunk[c + 1] += per_chunk[c];
  B.chunk_q0.assign(per_chunk.begin(), per_chunk.end());
  B.dest.assign(B.cold, 0);
  B.lcol.assign(B.cold, 0);
  std::vector<long long> fill(per_chunk.begin(), per_chunk.end() - 1);
  std::vector<std::pair<long long, long long>> byd;  // (dest, k)
  byd.reserve(B.cold);
  for (long long k = 0; k < nnz; ++k)
    if (cr[k] >= H) byd.push_back({dest_of[k], k});
  std::sort(byd.begin(), byd.end());
  for (const auto& [d, k] : byd) {
    const int ch = chunk_of[cr[k]];
    const long long q = fill[ch]++;
    B.dest[q] = static_cast<int>(d);
    B.lcol[q] = static_cast<std::uint16_t>(cr[k] - B.chunk_c0[ch]);
  }
  (void)rp;
  return B;
}

int main(int argc, char** argv) {
  int scale = 22;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps")
      g_reps = atoi(argv[++i]);
    else
      scale = atoi(argv[i]);
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  const int sms = prop.multiProcessorCount;
  auto coo = generate_rmat<std::int32_t>(scale, 16, 42);
  BuildOptions o;
  o.duplicates = DuplicatePolicy::Collapse;
  o.self_loops = SelfLoopPolicy::Drop;
  auto Gp = build_graph<std::int32_t, Pattern>(coo, o);
  const int n = static_cast<int>(Gp.rows());
  const long long nnz = Gp.nnz();
  std::vector<int> rp(Gp.row_ptr().begin(), Gp.row_ptr().end());
  std::vector<int> ci(Gp.col_idx().begin(), Gp.col_idx().end());
  std::vector<float> val(nnz);
  for (long long k = 0; k < nnz; ++k) val[k] = 0.5f + float((k * 40503u) & 1023) / 1024.f;
  // relabel columns by decreasing in-degree
  std::vector<int> deg(n, 0);
  for (long long k = 0; k < nnz; ++k) deg[ci[k]]++;
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return deg[a] > deg[b]; });
  std::vector<int> inv(n), coldeg(n);
  for (int p = 0; p < n; ++p) {
    inv[order[p]] = p;
    coldeg[p] = deg[order[p]];
  }
  std::vector<int> cr(nnz);
  for (long long k = 0; k < nnz; ++k) cr[k] = inv[ci[k]];
  std::vector<float> x(n), xr(n);
  for (int j = 0; j < n; ++j) x[j] = 0.5f + float((j * 2654435761u) >> 8) / float(1 << 24);
  for (int p = 0; p < n; ++p) xr[p] = x[order[p]];
  std::vector<double> ref(n), refp(n);
  for (int i = 0; i < n; ++i) {
    double s = 0, sp = 0;
    for (int k = rp[i]; k < rp[i + 1]; ++k) {
      s += double(val[k]) * x[ci[k]];
      sp += x[ci[k]];
    }
    ref[i] = s;
    refp[i] = sp;
  }
  RowBlocks rb = build_row_block_warps(rp.data(), n);
  const int tasks = static_cast<int>(rb.desc.size());
  printf("# rmat%d n %d nnz %lld tasks %d long rows %zu pieces %lld\n", scale, n, nnz, tasks,
         rb.longs.size(), (long long)rb.pieces);

  int* d_rp = upload(rp);
  int* d_ci = upload(ci);
  int* d_cr = upload(cr);
  float* d_val = upload(val);
  float* d_ones = upload(std::vector<float>(nnz, 1.f));
  float* d_x = upload(x);
  float* d_xr = upload(xr);
  float* d_y = dalloc<float>(n);
  RowBlockDesc* d_desc = upload(rb.desc);
  RowBlockLong* d_longs = upload(rb.longs);
  float* d_partial = dalloc<float>(rb.pieces + 1);
  const int n_long = static_cast<int>(rb.longs.size());
  auto pois = [&] { poison<<<(n + 255) / 256, 256>>>(d_y, n); };

  // cuSPARSE
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  double best_cus[2] = {1e30, 1e30};
  for (int pat = 0; pat < 2; ++pat) {
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    CS(cusparseCreateCsr(&A, n, n, nnz, d_rp, d_ci, pat ? d_ones : d_val, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CS(cusparseCreateDnVec(&X, n, d_x, CUDA_R_32F));
    CS(cusparseCreateDnVec(&Y, n, d_y, CUDA_R_32F));
    float one = 1.f, zero = 0.f;
    for (auto alg : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2}) {
      size_t bs = 0;
      CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
                                 CUDA_R_32F, alg, &bs));
      void* buf = dalloc<char>(bs);
      CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
                                 CUDA_R_32F, alg, buf));
      auto call = [&] {
        cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, alg,
                     buf);
      };
      pois();
      const double t = time_ms(call);
      const double tw = wall_ms(call);
      const double err = worst_err(d_y, pat ? refp : ref);
      best_cus[pat] = std::min(best_cus[pat], t);
      printf("%-44s %s %8.4f ms (wall %8.4f)  err %.1e\n",
             alg == CUSPARSE_SPMV_ALG_DEFAULT ? "cusparse default" : "cusparse alg2",
             pat ? "pat" : "val", t, tw, err);
      cudaFree(buf);
    }
  }
  auto report = [&](const std::string& what, bool pat, double t, double tw, double err) {
    printf("%-44s %s %8.4f ms (wall %8.4f)  x%.3f  err %.1e\n", what.c_str(), pat ? "pat" : "val",
           t, tw, best_cus[pat] / t, err);
    fflush(stdout);
  };
  // the library (planner's pick; includes its gather of u into relabelled order)
  {
    Graph<std::int32_t, float> G(n, n, std::vector<std::int32_t>(rp), std::vector<std::int32_t>(ci),
                                 std::vector<float>(val));
    Descriptor desc;
    desc.device = Device::Cuda;
    Vector<float> xv(x), yv(n);
    const semiring::plus_times<float> pt{};
    auto call = [&] { mxv(yv, Mask{}, Accum::none(), pt, G, xv, desc); };
    const double tw = wall_ms(call);
    std::vector<float> yh(yv.values().begin(), yv.values().end());
    double worst = 0;
    for (int i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(yh[i] - ref[i]) / std::max(1e-6, std::fabs(ref[i])));
    printf("%-44s val %8s    (wall %8.4f)  x%.3f(wall vs event cus)  err %.1e\n",
           "library mxv (planner)", "", tw, best_cus[0] / tw, worst);
  }
  // in-harness warp form, no bins
  for (int H : {16384, 32768}) {
    const size_t sm = (H + kWarps * kNB) * sizeof(float);
    for (int pat = 0; pat < 2; ++pat) {
      auto k = pat ? plain_kernel<false> : plain_kernel<true>;
      CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
      auto call = [&] {
        k<<<sms, kWarps * 32, sm>>>(d_rp, d_cr, d_val, d_xr, d_desc, tasks, d_y, d_partial, H);
        if (n_long) long_kernel<<<(n_long + 127) / 128, 128>>>(d_longs, n_long, d_partial, d_y);
      };
      pois();
      const double t = time_ms(call), tw = wall_ms(call);
      report("warp form, no bins, H=" + std::to_string(H), pat, t, tw,
             worst_err(d_y, pat ? refp : ref));
    }
  }
  // binned
  struct Cfg {
    int H, EB;
    long long TB;
    int EC, CW;
  };
  const long long big = 1LL << 40;
  std::vector<Cfg> cfgs = {{32768, 8192, big, 32768, 8192},
                           {32768, 8192, big, 65536, 8192},
                           {24576, 12288, big, 32768, 8192},
                           {16384, 16384, big, 32768, 8192},
                           {32768, 8192, 65536, 32768, 8192}};
  for (const Cfg& c : cfgs) {
    const auto t0 = std::chrono::steady_clock::now();
    Binned B = build_binned(n, rp, cr, rb.desc, coldeg, c.H, c.EB, c.TB, c.EC, c.CW);
    const double build_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::uint16_t* d_code = upload(B.code);
    int* d_bt = upload(B.bin_t0);
    int* d_bv = upload(B.bin_v0);
    int* d_q0 = upload(B.chunk_q0);
    int* d_c0 = upload(B.chunk_c0);
    int* d_c1 = upload(B.chunk_c1);
    int* d_dest = upload(B.dest);
    std::uint16_t* d_lcol = upload(B.lcol);
    float* d_v = dalloc<float>(B.vlen);
    CK(cudaMemset(d_v, 0, B.vlen * sizeof(float)));
    const std::string tag = "H=" + std::to_string(c.H) + " EB=" + std::to_string(c.EB) +
                            (c.TB < big ? " TB=" + std::to_string(c.TB) : std::string()) +
                            " EC=" + std::to_string(c.EC);
    printf("# %s: bins %d chunks %d cold %lld (%.1f%%) vlen %lld, host build %.1f s\n", tag.c_str(),
           B.bins, B.chunks, B.cold, 100.0 * B.cold / nnz, B.vlen, build_s);
    const size_t sm_e = c.CW * sizeof(float);
    const size_t sm_b = (c.H + 2 * c.EB + kWarps * kNB) * sizeof(float);
    auto expand = [&] {
      expand_kernel<<<B.chunks, 256, sm_e>>>(d_xr, d_q0, d_c0, d_c1, d_lcol, d_dest, d_v);
    };
    const double te = time_ms(expand);
    printf("%-44s     %8.4f ms\n", ("  expand " + tag).c_str(), te);
    float* d_v2 = dalloc<float>(B.cold);
    const double tc = time_ms([&] {
      expand_contig_kernel<<<B.chunks, 256, sm_e>>>(d_xr, d_q0, d_c0, d_c1, d_lcol, d_dest, d_v2);
    });
    cudaFree(d_v2);
    printf("%-44s     %8.4f ms\n", ("  expand, writes in order " + tag).c_str(), tc);
    for (int pat = 0; pat < 2; ++pat) {
      auto k = pat ? binned_kernel<false> : binned_kernel<true>;
      CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm_b));
      auto product = [&] {
        k<<<sms, kWarps * 32, sm_b>>>(d_rp, d_code, d_val, d_xr, d_desc, d_bt, d_bv, B.bins, d_v,
                                      d_y, d_partial, c.H, c.EB);
        if (n_long) long_kernel<<<(n_long + 127) / 128, 128>>>(d_longs, n_long, d_partial, d_y);
      };
      const double tp = time_ms(product);
      printf("%-44s %s %8.4f ms\n", ("  product " + tag).c_str(), pat ? "pat" : "val", tp);
      auto both = [&] {
        expand();
        product();
      };
      pois();
      CK(cudaMemset(d_v, 0xff, B.vlen * sizeof(float)));
      const double t = time_ms(both), tw = wall_ms(both);
      report("binned " + tag, pat, t, tw, worst_err(d_y, pat ? refp : ref));
    }
    for (void* p : {(void*)d_code, (void*)d_bt, (void*)d_bv, (void*)d_q0, (void*)d_c0, (void*)d_c1,
                    (void*)d_dest, (void*)d_lcol, (void*)d_v})
      cudaFree(p);
  }
  return 0;
}
