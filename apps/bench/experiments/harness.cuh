// SPDX-License-Identifier: Apache-2.0
// Scaffolding shared by the exploration harnesses in this folder (not built by CMake): status
// checks that exit with the call site, uploads, and the two timers (events on the legacy stream;
// wall clock around batches, for code that runs on Spindle's own stream), and cuSPARSE's SpMV
// baseline, output poisoning and the error check against a host product, one case's data on both
// sides (Case), and the two R-MAT cases of the warp-form experiments with their main()
// (rmat_main). Used by floor.cu, warp_async.cu, warp_cold.cu and warp_rows.cu; the older
// harnesses keep their own copies.
#pragma once

#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/cuda/mxv/mxv_args.cuh"
#include "spindle/coo_builder.hpp"
#include "spindle/loaders/generate.hpp"

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

namespace harness {

inline int g_reps = 30;  // timed runs per measurement (--reps)

template <class T>
T* upload(const std::vector<T>& v) {
  T* p;
  CK(cudaMalloc(&p, std::max<size_t>(v.size(), 1) * sizeof(T)));
  CK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return p;
}

// Median of g_reps event-timed runs on the legacy stream, after 3 warm-up runs.
template <class F>
double time_ms(F&& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < g_reps; ++i) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Median over 7 batches of the wall time per call of 20 calls and one synchronize.
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

// Columns relabelled by decreasing in-degree (a stable sort, so ties keep their order), as the
// library's relabel cache orders them: order[p] is the column with new id p, inv its inverse, cr
// the entries' new column ids, deg the in-degree of each original column.
struct Relabel {
  std::vector<int> deg, order, inv, cr;
};
inline Relabel relabel_by_in_degree(int n, const std::vector<int>& ci) {
  Relabel r;
  r.deg.assign(n, 0);
  for (int c : ci) r.deg[c]++;
  r.order.resize(n);
  std::iota(r.order.begin(), r.order.end(), 0);
  std::stable_sort(r.order.begin(), r.order.end(),
                   [&](int a, int b) { return r.deg[a] > r.deg[b]; });
  r.inv.resize(n);
  for (int p = 0; p < n; ++p) r.inv[r.order[p]] = p;
  r.cr.resize(ci.size());
  for (size_t k = 0; k < ci.size(); ++k) r.cr[k] = r.inv[ci[k]];
  return r;
}

// y = A x by cuSPARSE's default and CSR_ALG2 algorithms (fp32, int32 CSR already on the device),
// each timed by time_ms; report(name, ms) is called after each (y then holds its result). Returns
// the faster time: the baseline of every ratio.
inline double cusparse_spmv_best(int n, long long nnz, int* d_rp, int* d_ci, float* d_val,
                                 float* d_x, float* d_y,
                                 const std::function<void(const char*, double)>& report) {
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t X, Y;
  CS(cusparseCreateCsr(&A, n, n, nnz, d_rp, d_ci, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CS(cusparseCreateDnVec(&X, n, d_x, CUDA_R_32F));
  CS(cusparseCreateDnVec(&Y, n, d_y, CUDA_R_32F));
  double best = 1e30;
  for (auto alg : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG2}) {
    float one = 1.f, zero = 0.f;
    size_t bs = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y,
                               CUDA_R_32F, alg, &bs));
    void* buf;
    CK(cudaMalloc(&buf, std::max<size_t>(bs, 1)));
    const double t = time_ms([&] {
      cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, CUDA_R_32F, alg, buf);
    });
    CK(cudaDeviceSynchronize());
    report(alg == CUSPARSE_SPMV_ALG_DEFAULT ? "cusparse default" : "cusparse alg2", t);
    best = std::min(best, t);
    CK(cudaFree(buf));
  }
  CS(cusparseDestroySpMat(A));
  CS(cusparseDestroyDnVec(X));
  CS(cusparseDestroyDnVec(Y));
  CS(cusparseDestroy(h));
  return best;
}

__global__ void poison_kernel(float* p, long long n) {
  for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += 256LL * gridDim.x)
    p[i] = __int_as_float(0x7fffffff);
}

// NaN in every entry of d[0, n): a kernel that leaves an entry unwritten shows as a wrong value.
inline void poison(float* d, long long n) { poison_kernel<<<256, 256>>>(d, n); }

// Largest relative error of the device vector d_y against ref (a NaN counts as 1e30). With row
// offsets, the first four rows off by more than 1e-4 are printed with their entry ranges.
inline double worst_relative_error(const float* d_y, const std::vector<double>& ref,
                                   const std::vector<int>* rp = nullptr) {
  const std::size_t n = ref.size();
  std::vector<float> y(n);
  CK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
  double w = 0;
  int shown = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::fabs(y[i] - ref[i]) / std::max(1e-6, std::fabs(ref[i]));
    if (rp != nullptr && !(e <= 1e-4) && shown < 4) {
      printf("   bad row %zu: %g, expected %g (entries %d..%d)\n", i, y[i], ref[i], (*rp)[i],
             (*rp)[i + 1]);
      ++shown;
    }
    if (!(e <= w)) w = std::isnan(e) ? 1e30 : std::max(w, e);
  }
  return w;
}

// One case of the warp-form experiments: G's CSR with fp32 values (a fixed pattern in
// [0.5, 1.5); all 1 when kValues is false), u and u in relabelled column order (relabel_by_in_
// degree), the double host product y = A u as the reference, all of it on the device with room
// for y, and cuSPARSE's best time over the same data (each algorithm printed with a
// `width`-wide label and its error). args() gives the kernels' arguments over the relabelled
// columns; worst() checks y on the device (with `show_rows`, the first bad rows are printed).
template <bool kValues>
struct Case {
  int n = 0;
  long long nnz = 0;
  std::vector<int> rp, ci;
  std::vector<float> val, x, xr;
  Relabel rl;
  std::vector<double> ref;
  int *d_rp = nullptr, *d_ci = nullptr, *d_cr = nullptr;
  float *d_val = nullptr, *d_x = nullptr, *d_xr = nullptr, *d_y = nullptr;
  double best = 0;  // cuSPARSE's best, ms
  bool show_rows = false;

  Case(const spindle::Graph<std::int32_t, spindle::Pattern>& G, int width, bool rows = false)
      : n(static_cast<int>(G.rows())),
        nnz(G.nnz()),
        rp(G.row_ptr().begin(), G.row_ptr().end()),
        ci(G.col_idx().begin(), G.col_idx().end()),
        val(static_cast<std::size_t>(nnz), 1.f),
        x(static_cast<std::size_t>(n)),
        xr(static_cast<std::size_t>(n)),
        ref(static_cast<std::size_t>(n)),
        show_rows(rows) {
    if (kValues) {
      for (long long k = 0; k < nnz; ++k) val[k] = 0.5f + float((k * 40503u) & 1023) / 1024.f;
    }
    rl = relabel_by_in_degree(n, ci);
    for (int j = 0; j < n; ++j) x[j] = 0.5f + float((j * 2654435761u) >> 8) / float(1 << 24);
    for (int p = 0; p < n; ++p) xr[p] = x[rl.order[p]];
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = rp[i]; k < rp[i + 1]; ++k) s += double(val[k]) * x[ci[k]];
      ref[i] = s;
    }
    d_rp = upload(rp);
    d_ci = upload(ci);
    d_cr = upload(rl.cr);
    d_val = upload(val);
    d_x = upload(x);
    d_xr = upload(xr);
    CK(cudaMalloc(&d_y, static_cast<std::size_t>(n) * sizeof(float)));
    best = cusparse_spmv_best(n, nnz, d_rp, d_ci, d_val, d_x, d_y, [&](const char* nm, double t) {
      printf("%-*s %8.4f ms  err %.1e\n", width, nm, t, worst());
    });
  }
  Case(const Case&) = delete;
  Case& operator=(const Case&) = delete;
  ~Case() {
    for (void* p :
         {(void*)d_rp, (void*)d_ci, (void*)d_cr, (void*)d_val, (void*)d_x, (void*)d_xr, (void*)d_y})
      cudaFree(p);
  }

  double worst() const { return worst_relative_error(d_y, ref, show_rows ? &rp : nullptr); }

  template <class VV>
  spindle::detail::cuda::MxvArgs<float, int, VV> args() const {
    spindle::detail::cuda::MxvArgs<float, int, VV> a;
    a.A.rows = n;
    a.A.cols = n;
    a.A.nnz = nnz;
    a.A.row_ptr = d_rp;
    a.A.col_idx = d_cr;
    if constexpr (!std::is_same_v<VV, spindle::Pattern>) a.A.values = d_val;
    a.u = d_xr;
    a.out.w = d_y;
    a.identity = 0.f;
    return a;
  }
};

// Prints the device, then runs run(kind, name, graph, sms, smem_per_block_optin) on the two
// R-MAT cases of the warp-form experiments: the mxv benchmark's graph (seed 42, duplicates
// collapsed) with fp32 values (kind: std::true_type), and PageRank's product A^T (seed 1,
// pattern-only; kind: std::false_type).
template <class F>
void run_rmat_cases(int scale, F&& run) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# %s, %d SMs, L2 %d MB, opt-in shared memory per block %zu B\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin);
  const int sms = prop.multiProcessorCount;
  const std::int64_t optin = static_cast<std::int64_t>(prop.sharedMemPerBlockOptin);
  const std::string s = std::to_string(scale);
  {
    spindle::BuildOptions o;
    o.duplicates = spindle::DuplicatePolicy::Collapse;
    auto G = spindle::build_graph<std::int32_t, spindle::Pattern>(
        spindle::generate_rmat<std::int32_t>(scale, 16, 42), o);
    run(std::true_type{}, "R-MAT " + s + " (seed 42), fp32 values", G, sms, optin);
  }
  {
    auto G = spindle::build_graph<std::int32_t, spindle::Pattern>(
        spindle::generate_rmat<std::int32_t>(scale, 16, 1));
    run(std::false_type{}, "R-MAT " + s + " (seed 1), A^T pattern", G.transpose(), sms, optin);
  }
}

// main() of the warp-form experiments without options of their own: `[scale] [--reps N]` (scale
// 22 by default), then run_rmat_cases(scale, run).
template <class F>
int rmat_main(int argc, char** argv, F&& run) {
  int scale = 22;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    if (s == "--reps" && i + 1 < argc) {
      g_reps = atoi(argv[++i]);
    } else {
      scale = atoi(argv[i]);
    }
  }
  run_rmat_cases(scale, run);
  return 0;
}

}  // namespace harness
