// SPDX-License-Identifier: Apache-2.0
// Exploration harness for GCN's dense products (not built by CMake, not a benchmark of record:
// claims come from `spindle bench gcn`). Row-major C (m x n) = X (m x k) · W (k x n), the shapes
// of GCN 128-128-32 on R-MAT scale 22, through the cuBLAS paths that could replace
// ops/cuda/gemm's plain cublasSgemm:
//   sgemm        cublasSgemm, default math (what the library runs)
//   lt:I         cublasLt FP32 (CUBLAS_COMPUTE_32F), the I-th algorithm of its heuristic list
//   bf16x9       cublasGemmEx with CUBLAS_COMPUTE_32F_EMULATED_16BFX9 (FP32 emulated with three
//                BF16 terms per operand), emulation strategy EAGER
//   tf32         cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 (not FP32: speed reference only)
// Each is timed (CUDA events, median of --reps after 2 warm-up runs) and checked against a double
// reference on 1024 sampled rows: the largest |c - ref| / sum_k |x_ik w_kj| (float rounding of a
// 128-term dot product is near 1e-7 in these units).
// Build: nvcc -O3 -std=c++17 -arch=sm_90 apps/bench/experiments/gemm_variants.cu -lcublas
//   -lcublasLt -o gemm_variants
// Run:   ./gemm_variants --m 4194304 --k 128 --n 128,32 --reps 10
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

namespace {

struct Timer {
  cudaEvent_t a, b;
  Timer() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
};

template <class F>
double median_ms(F&& f, int reps) {
  for (int i = 0; i < 2; ++i) f();
  CK(cudaDeviceSynchronize());
  std::vector<float> v;
  Timer t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(t.a));
    f();
    CK(cudaEventRecord(t.b));
    CK(cudaEventSynchronize(t.b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t.a, t.b));
    v.push_back(ms);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double max_err(const std::vector<float>& X, const std::vector<float>& W, const float* dC, long m,
               int k, int n) {
  std::vector<float> row(n);
  double worst = 0;
  std::mt19937_64 rng(7);
  for (int s = 0; s < 1024; ++s) {
    const long i = static_cast<long>(rng() % static_cast<unsigned long>(m));
    CK(cudaMemcpy(row.data(), dC + i * n, sizeof(float) * n, cudaMemcpyDeviceToHost));
    for (int j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int q = 0; q < k; ++q) {
        const double p = double(X[i * k + q]) * double(W[q * n + j]);
        ref += p;
        mag += std::fabs(p);
      }
      const double e = std::fabs(double(row[j]) - ref) / (mag > 0 ? mag : 1);
      if (!(e <= worst)) worst = e;  // NaN shows as NaN
    }
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  long m = 4194304;
  int k = 128, reps = 10;
  std::vector<int> ns = {128, 32};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i];
    if (f == "--m") m = std::atol(argv[i + 1]);
    if (f == "--k") k = std::atoi(argv[i + 1]);
    if (f == "--reps") reps = std::atoi(argv[i + 1]);
    if (f == "--n") {
      ns.clear();
      std::stringstream ss(argv[i + 1]);
      std::string t;
      while (std::getline(ss, t, ',')) ns.push_back(std::atoi(t.c_str()));
    }
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, m %ld, k %d, reps %d\n", prop.name, m, k, reps);

  std::vector<float> X(static_cast<std::size_t>(m) * k);
  {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (auto& x : X) x = u(rng);
  }
  float *dX = nullptr, *dW = nullptr, *dC = nullptr;
  const int nmax = *std::max_element(ns.begin(), ns.end());
  CK(cudaMalloc(&dX, sizeof(float) * X.size()));
  CK(cudaMalloc(&dW, sizeof(float) * k * nmax));
  CK(cudaMalloc(&dC, sizeof(float) * static_cast<std::size_t>(m) * nmax));
  CK(cudaMemcpy(dX, X.data(), sizeof(float) * X.size(), cudaMemcpyHostToDevice));
  void* ws = nullptr;
  const std::size_t ws_bytes = std::size_t{256} << 20;
  CK(cudaMalloc(&ws, ws_bytes));

  cublasHandle_t h;
  cublasCreate(&h);
  cublasLtHandle_t lt;
  cublasLtCreate(&lt);

  for (const int n : ns) {
    std::vector<float> W(static_cast<std::size_t>(k) * n);
    std::mt19937_64 rng(2 + n);
    std::uniform_real_distribution<float> u(-0.2f, 0.2f);
    for (auto& w : W) w = u(rng);
    CK(cudaMemcpy(dW, W.data(), sizeof(float) * W.size(), cudaMemcpyHostToDevice));
    const float one = 1.f, zero = 0.f;
    const double gflop = 2.0 * m * k * n * 1e-9;
    auto report = [&](const std::string& name, double ms, cublasStatus_t st) {
      if (st != CUBLAS_STATUS_SUCCESS) {
        std::printf("n %4d  %-28s status %d\n", n, name.c_str(), static_cast<int>(st));
        return;
      }
      CK(cudaMemset(dC, 0xFF, sizeof(float) * static_cast<std::size_t>(m) * n));
      std::printf("n %4d  %-28s %8.3f ms  %6.1f TFLOP/s", n, name.c_str(), ms, gflop / ms);
      std::fflush(stdout);
      return;
    };
    auto check = [&](const std::function<cublasStatus_t()>& f) {
      const cublasStatus_t st = f();
      CK(cudaDeviceSynchronize());
      std::printf("  max rel err %.3g\n",
                  st == CUBLAS_STATUS_SUCCESS ? max_err(X, W, dC, m, k, n) : -1.0);
    };

    // sgemm (column-major Cᵀ = Wᵀ Xᵀ)
    {
      cublasSetMathMode(h, CUBLAS_DEFAULT_MATH);
      auto f = [&] {
        return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, static_cast<int>(m), k, &one, dW, n, dX,
                           k, &zero, dC, n);
      };
      const cublasStatus_t st = f();
      report("sgemm", st == CUBLAS_STATUS_SUCCESS ? median_ms(f, reps) : 0, st);
      check(f);
    }
    // tf32
    {
      auto f = [&] {
        return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, static_cast<int>(m), k, &one, dW,
                            CUDA_R_32F, n, dX, CUDA_R_32F, k, &zero, dC, CUDA_R_32F, n,
                            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
      };
      const cublasStatus_t st = f();
      report("tf32 (not fp32)", st == CUBLAS_STATUS_SUCCESS ? median_ms(f, reps) : 0, st);
      check(f);
    }
    // bf16x9 emulation, eager and default strategies
    for (const auto strat : {CUBLAS_EMULATION_STRATEGY_EAGER, CUBLAS_EMULATION_STRATEGY_DEFAULT}) {
      cublasSetEmulationStrategy(h, strat);
      auto f = [&] {
        return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, static_cast<int>(m), k, &one, dW,
                            CUDA_R_32F, n, dX, CUDA_R_32F, k, &zero, dC, CUDA_R_32F, n,
                            CUBLAS_COMPUTE_32F_EMULATED_16BFX9, CUBLAS_GEMM_DEFAULT);
      };
      const cublasStatus_t st = f();
      report(strat == CUBLAS_EMULATION_STRATEGY_EAGER ? "bf16x9 eager" : "bf16x9 default",
             st == CUBLAS_STATUS_SUCCESS ? median_ms(f, reps) : 0, st);
      check(f);
    }
    cublasSetEmulationStrategy(h, CUBLAS_EMULATION_STRATEGY_DEFAULT);

    // cublasLt FP32: every algorithm of the heuristic list
    {
      cublasLtMatmulDesc_t op;
      cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
      cublasLtMatrixLayout_t la, lb, lc;
      cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, n, k, n);  // Wᵀ as column-major n x k
      cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, m, k);  // Xᵀ: k x m
      cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, n, m, n);
      cublasLtMatmulPreference_t pref;
      cublasLtMatmulPreferenceCreate(&pref);
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                           &ws_bytes, sizeof(ws_bytes));
      cublasLtMatmulHeuristicResult_t res[16];
      int found = 0;
      cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 16, res, &found);
      for (int a = 0; a < found; ++a) {
        auto f = [&] {
          return cublasLtMatmul(lt, op, &one, dW, la, dX, lb, &zero, dC, lc, dC, lc, &res[a].algo,
                                ws, ws_bytes, nullptr);
        };
        const cublasStatus_t st = f();
        report("lt:" + std::to_string(a), st == CUBLAS_STATUS_SUCCESS ? median_ms(f, reps) : 0, st);
        check(f);
      }
      cublasLtMatmulPreferenceDestroy(pref);
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(lc);
      cublasLtMatmulDescDestroy(op);
    }
  }
  return 0;
}
