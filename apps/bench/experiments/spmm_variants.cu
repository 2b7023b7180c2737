// SPDX-License-Identifier: Apache-2.0
// Exploration harness for nnz_balanced_seq's group form (not built by CMake, not a benchmark of
// record: claims come from `spindle bench mxm`). On generated R-MAT / uniform graphs, plus_times
// fp32, it times against cuSPARSE SpMM (best of its algorithms, same process):
//   - old:   the first group form (each group walks the rows of its chunk, row_cache_seq's
//            segment walk, empty rows written by the group);
//   - walk<B, MINB, PF>: the entry walk (ops/cuda/mxm/nnz_balanced_seq.cuh) with a batch of B
//            entries, __launch_bounds__(256, MINB) and, with PF, the next batch's column / row /
//            value loads issued before the current batch's gathers.
// Every variant uses the library's empty-row pass and fix-up; results are checked against
// cuSPARSE. ops/cuda/mxm/NOTES.md has what it found.
//
// Build (from the repository root, after the CUDA build in build/wt for libspindle.a):
//   nvcc -O3 -std=c++17 -arch=sm_90 -I. -Iengine/include -Iloaders/include -Iops/include
//     -Ialgorithms/include -Ibuild/wt/generated/include -Xcompiler -fopenmp
//     apps/bench/experiments/spmm_variants.cu build/wt/libspindle.a -lcusparse -lcublas
//     -o spmm_variants
// Run: ./spmm_variants rmat22 uniform22 --n 16,32,64,128 [--reps 10]
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "ops/cuda/mxm/coo_rows.cuh"
#include "ops/cuda/mxm/cusparse_spmm.hpp"
#include "ops/cuda/mxm/nnz_balanced_seq.cuh"
#include "spindle/spindle.hpp"

using namespace spindle;
using namespace spindle::detail::cuda;
using S = semiring::plus_times<float>;
using A = SpmmArgs<int, float, float>;
using W = BalancedArgs<int, float>;

#define CK(x)                                                                            \
  do {                                                                                   \
    cudaError_t e_ = (x);                                                                \
    if (e_ != cudaSuccess) {                                                             \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

namespace xp {

template <int VEC>
__global__ void __launch_bounds__(256) old_group(A a, W w, int g_log2) {
  __shared__ SeqCache<int, float, float> cache;
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int qlane = lane & (G - 1);
  const int slot0 = static_cast<int>(threadIdx.x) & ~(G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + qlane * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  const std::int64_t r0 = w.chunk_row[c];
  const std::int64_t r1 = w.chunk_row[c + 1];
  std::int64_t start = a.row_ptr[r0];
  float acc[VEC];
  if (start > s) {
    for (int v = 0; v < VEC; ++v) acc[v] = 0.f;
    accumulate_segment<S, int, float, float, VEC>(a, cache, s, start < e ? start : e, G, qlane,
                                                  slot0, gmask, col, col_ok, acc);
    if (col_ok)
      for (int v = 0; v < VEC; ++v) w.ws_head[c * a.n + col + v] = acc[v];
  }
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t next = a.row_ptr[r + 1];
    for (int v = 0; v < VEC; ++v) acc[v] = 0.f;
    accumulate_segment<S, int, float, float, VEC>(a, cache, start, next < e ? next : e, G, qlane,
                                                  slot0, gmask, col, col_ok, acc);
    if (col_ok) {
      if (next <= e) {
        store_row_frag<float, VEC>(a.epi, a.c + r * a.ldc + col, col, acc);
      } else {
        for (int v = 0; v < VEC; ++v) w.ws_tail[c * a.n + col + v] = acc[v];
      }
    }
    start = next;
  }
}

template <int VEC, int B, int MINB, bool PF>
__global__ void __launch_bounds__(256, MINB) walk(A a, W w, int g_log2) {
  const int G = 1 << g_log2;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int q = lane & (G - 1);
  const unsigned gmask = group_mask(lane, G);
  const std::int64_t c =
      (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> g_log2;
  if (c >= w.nchunks) return;
  const std::int64_t col =
      static_cast<std::int64_t>(blockIdx.y) * (static_cast<std::int64_t>(G) * VEC) + q * VEC;
  const bool col_ok = col < a.n;
  const std::int64_t s = c * w.chunk;
  const std::int64_t e = s + w.chunk < w.nnz ? s + w.chunk : w.nnz;
  int cur = __ldg(w.row_idx + s);
  const int head_row = a.row_ptr[cur] < s ? cur : -1;
  float acc[VEC];
  for (int v = 0; v < VEC; ++v) acc[v] = 0.f;
  constexpr int H = B / 4;  // entries per lane of a batch (G >= 4)
  int jq[H], rq[H];
  float vq[H];
  auto load_batch = [&](std::int64_t k0) {
#pragma unroll
    for (int h = 0; h < H; ++h) {
      const std::int64_t k = k0 + q + h * G;
      jq[h] = 0;
      rq[h] = cur;
      vq[h] = 0.f;
      if (q + h * G < B && k < e) {
        jq[h] = ld_stream<1>(a.col_idx + k);
        rq[h] = ld_stream<1>(w.row_idx + k);
        vq[h] = ld_stream<1>(a.vals + k);
      }
    }
  };
  load_batch(s);
  for (std::int64_t k0 = s; k0 < e; k0 += B) {
    int jc[H], rc[H];
    float vc[H];
#pragma unroll
    for (int h = 0; h < H; ++h) {
      jc[h] = jq[h];
      rc[h] = rq[h];
      vc[h] = vq[h];
    }
    if constexpr (PF) {
      if (k0 + B < e) load_batch(k0 + B);
    }
    const int cnt = static_cast<int>(e - k0 < B ? e - k0 : B);
    Frag<float, VEC> bf[B];
#pragma unroll
    for (int t = 0; t < B; ++t) {
      const int h = t / G < H - 1 ? t / G : H - 1;
      const int j = __shfl_sync(gmask, jc[h], t - h * G, G);
      if (t < cnt && col_ok)
        bf[t] = load_frag<float, VEC>(a.b + static_cast<std::int64_t>(j) * a.ldb + col);
    }
#pragma unroll
    for (int t = 0; t < B; ++t) {
      if (t < cnt) {
        const int h = t / G < H - 1 ? t / G : H - 1;
        const int r = __shfl_sync(gmask, rc[h], t - h * G, G);
        const float av = __shfl_sync(gmask, vc[h], t - h * G, G);
        if (r != cur) {
          balanced_flush<int, float, float, VEC>(a, w, c, cur, head_row, true, col, col_ok, acc);
          cur = r;
          for (int v = 0; v < VEC; ++v) acc[v] = 0.f;
        }
        if (col_ok)
          for (int v = 0; v < VEC; ++v) acc[v] += av * bf[t].v[v];
      }
    }
    if constexpr (!PF) {
      if (k0 + B < e) load_batch(k0 + B);
    }
  }
  const bool ends = a.row_ptr[cur + 1] <= e;
  balanced_flush<int, float, float, VEC>(a, w, c, cur, head_row, ends, col, col_ok, acc);
}

/// The fix-up with 8 head loads in flight per lane (library version loads one at a time).
__global__ void fixup8(const int* __restrict__ row_ptr, W w, std::int64_t n,
                       float* __restrict__ c_out, std::int64_t ldc) {
  const std::int64_t c = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  if (c + 1 >= w.nchunks) return;
  const std::int64_t e = (c + 1) * w.chunk;
  const std::int64_t r0 = w.chunk_row[c], r1 = w.chunk_row[c + 1];
  if (r1 == r0) return;
  const std::int64_t r = r1 - 1;
  const std::int64_t rend = row_ptr[r + 1];
  if (rend <= e) return;
  const std::int64_t lc = (rend + w.chunk - 1) / w.chunk;
  const std::int64_t last = lc < w.nchunks ? lc : w.nchunks;
  for (std::int64_t col = lane; col < n; col += 32) {
    float acc = w.ws_tail[c * n + col];
    for (std::int64_t c2 = c + 1; c2 < last; c2 += 8) {
      float h[8];
#pragma unroll
      for (int u = 0; u < 8; ++u) h[u] = c2 + u < last ? w.ws_head[(c2 + u) * n + col] : 0.f;
#pragma unroll
      for (int u = 0; u < 8; ++u)
        if (c2 + u < last) acc += h[u];
    }
    c_out[r * ldc + col] = acc;
  }
}

}  // namespace xp

int g_reps = 10;

template <class F>
float time_ms(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  f();
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> t;
  for (int i = 0; i < g_reps; ++i) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

void run_graph(const char* name, const Graph<int, float>& G, const std::vector<int>& widths) {
  const std::int64_t n = G.rows(), nnz = G.nnz();
  int *rp, *ci, *ri;
  float* vv;
  CK(cudaMalloc(&rp, (n + 1) * 4));
  CK(cudaMalloc(&ci, nnz * 4));
  CK(cudaMalloc(&ri, nnz * 4));
  CK(cudaMalloc(&vv, nnz * 4));
  CK(cudaMemcpy(rp, G.row_ptr().data(), (n + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ci, G.col_idx().data(), nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(vv, G.values().data(), nnz * 4, cudaMemcpyHostToDevice));
  expand_rows_kernel<int><<<static_cast<unsigned>((n * 32 + 255) / 256), 256>>>(rp, n, ri);
  CK(cudaDeviceSynchronize());
  for (int N : widths) {
    float *b, *c, *cref;
    CK(cudaMalloc(&b, G.cols() * N * 4));
    CK(cudaMalloc(&c, n * N * 4));
    CK(cudaMalloc(&cref, n * N * 4));
    std::vector<float> hb(static_cast<size_t>(G.cols()) * N);
    for (size_t i = 0; i < hb.size(); ++i)
      hb[i] = float((i * 2654435761u >> 7) % 1000) / 1000.f - 0.5f;
    CK(cudaMemcpy(b, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    DeviceCsr<int, float> d;
    d.rows = n;
    d.cols = G.cols();
    d.nnz = nnz;
    d.row_ptr = rp;
    d.col_idx = ci;
    d.values = vv;
    float best_cs = 1e30f;
    const char* best_alg = "";
    for (auto alg : kCusparseSpmmAlgs) {
      CusparseSpmm<int, float> op(d, b, N, cref, N, N, 0.f, alg);
      if (!op.supported()) continue;
      const float ms = time_ms([&] { op.run(); });
      if (ms < best_cs) {
        best_cs = ms;
        best_alg = to_string(alg);
      }
    }
    {
      CusparseSpmm<int, float> op(d, b, N, cref, N, N, 0.f, CusparseSpmmAlg::Default);
      op.run();
    }
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(static_cast<size_t>(n) * N), got(ref.size());
    CK(cudaMemcpy(ref.data(), cref, ref.size() * 4, cudaMemcpyDeviceToHost));
    printf("%-10s N=%-4d cusparse %-10s %8.3f ms\n", name, N, best_alg, best_cs);

    A a;
    a.rows = n;
    a.n = N;
    a.row_ptr = rp;
    a.col_idx = ci;
    a.vals = vv;
    a.b = b;
    a.ldb = N;
    a.c = c;
    a.ldc = N;
    a.identity = 0.f;
    const int G4 = std::max(4, pow2_lanes(N / 4));
    const int glog = log2_int(G4);
    const unsigned ytiles = static_cast<unsigned>((N + G4 * 4 - 1) / (G4 * 4));
    for (int chunk : {128, 256, 512}) {
      W w;
      w.nnz = nnz;
      w.chunk = balanced_chunk(nnz, N, 4, chunk, 128ll << 20);
      w.nchunks = (nnz + w.chunk - 1) / w.chunk;
      int* cr;
      float* ws;
      CK(cudaMalloc(&cr, (w.nchunks + 1) * 4));
      CK(cudaMalloc(&ws, 2 * w.nchunks * N * 4));
      launch_spmm_chunk_rows<int>(rp, n, w.chunk, w.nchunks, cr, 0);
      w.chunk_row = cr;
      w.row_idx = ri;
      w.ws_head = ws;
      w.ws_tail = ws + w.nchunks * N;
      const dim3 grid(static_cast<unsigned>((w.nchunks * G4 + 255) / 256), ytiles);
      auto tail = [&](bool empty, bool fix8) {
        if (empty)
          spmm_empty_rows_kernel<int, float><<<static_cast<unsigned>((n + 255) / 256), 256>>>(
              rp, n, N, c, N, a.epi, 0.f, nullptr);
        if (w.nchunks > 1) {
          const unsigned gb = static_cast<unsigned>(((w.nchunks - 1) * 32 + 255) / 256);
          if (fix8)
            xp::fixup8<<<gb, 256>>>(rp, w, N, c, N);
          else
            spmm_balanced_fixup_kernel<S, int, float><<<gb, 256>>>(rp, w, N, c, N, a.epi);
        }
      };
      struct V {
        const char* name;
        std::function<void()> f;
      };
      std::vector<V> vs = {
          {"old",
           [&] {
             xp::old_group<4><<<grid, 256>>>(a, w, glog);
             tail(false, false);
           }},
          {"walk8",
           [&] {
             xp::walk<4, 8, 1, false><<<grid, 256>>>(a, w, glog);
             tail(true, false);
           }},
          {"walk8_m4",
           [&] {
             xp::walk<4, 8, 4, false><<<grid, 256>>>(a, w, glog);
             tail(true, false);
           }},
          {"walk8_m3_pf",
           [&] {
             xp::walk<4, 8, 3, true><<<grid, 256>>>(a, w, glog);
             tail(true, true);
           }},
          {"walk8_m4_pf",
           [&] {
             xp::walk<4, 8, 4, true><<<grid, 256>>>(a, w, glog);
             tail(true, true);
           }},
          {"walk4_m4_pf",
           [&] {
             xp::walk<4, 4, 4, true><<<grid, 256>>>(a, w, glog);
             tail(true, true);
           }},
          {"walk4_m6_pf",
           [&] {
             xp::walk<4, 4, 6, true><<<grid, 256>>>(a, w, glog);
             tail(true, true);
           }},
          {"walk16_m2_pf",
           [&] {
             xp::walk<4, 16, 2, true><<<grid, 256>>>(a, w, glog);
             tail(true, true);
           }},
      };
      for (auto& v : vs) {
        CK(cudaMemset(c, 0xff, n * N * 4));
        v.f();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
        double err = 0;
        for (size_t i = 0; i < got.size(); ++i) {
          const double d2 = std::fabs(double(got[i]) - ref[i]) / (std::fabs(ref[i]) + 1.0);
          if (!(d2 <= err)) err = std::isnan(d2) ? 1e9 : std::max(err, d2);
        }
        const float ms = time_ms(v.f);
        printf("%-10s N=%-4d chunk %-4lld %-14s %8.3f ms  %5.2fx  err %.1e\n", name, N,
               (long long)w.chunk, v.name, ms, best_cs / ms, err);
      }
      cudaFree(cr);
      cudaFree(ws);
    }
    cudaFree(b);
    cudaFree(c);
    cudaFree(cref);
  }
  cudaFree(rp);
  cudaFree(ci);
  cudaFree(ri);
  cudaFree(vv);
}

int main(int argc, char** argv) {
  std::vector<std::string> graphs;
  std::vector<int> widths = {16, 32, 64, 128};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--reps") {
      g_reps = atoi(argv[++i]);
    } else if (a == "--n") {
      widths.clear();
      std::string s = argv[++i];
      size_t p = 0;
      while (p < s.size()) {
        widths.push_back(atoi(s.c_str() + p));
        p = s.find(',', p);
        if (p == std::string::npos) break;
        ++p;
      }
    } else {
      graphs.push_back(a);
    }
  }
  if (graphs.empty()) graphs = {"rmat22"};
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  printf("# %s, %d SMs, L2 %d MB\n", p.name, p.multiProcessorCount, p.l2CacheSize >> 20);
  for (const auto& g : graphs) {
    const bool rmat = g.rfind("rmat", 0) == 0;
    const int scale = atoi(g.c_str() + (rmat ? 4 : 7));
    auto coo = rmat ? generate_rmat<std::int32_t>(scale, 16, 42)
                    : generate_uniform<std::int32_t>(scale, 16, 42);
    BuildOptions o;
    o.duplicates = DuplicatePolicy::Collapse;
    o.self_loops = SelfLoopPolicy::Drop;
    auto Gp = build_graph<std::int32_t, Pattern>(coo, o);
    std::vector<float> v(Gp.nnz());
    for (size_t k = 0; k < v.size(); ++k) v[k] = 0.5f + float((k * 40503u) & 1023) / 1024.f;
    std::vector<std::int32_t> rpv(Gp.row_ptr()), civ(Gp.col_idx());
    Graph<std::int32_t, float> G(Gp.rows(), Gp.cols(), std::move(rpv), std::move(civ),
                                 std::move(v));
    run_graph(g.c_str(), G, widths);
  }
}
