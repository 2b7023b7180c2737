// SPDX-License-Identifier: Apache-2.0
// cuBLAS GEMM for row-major dense matrices (gemm.hpp). cuBLAS is column-major: a row-major
// m x n matrix is its column-major n x m transpose, so C = A·B is computed as Cᵀ = Bᵀ·Aᵀ with
// no data movement.
//
// Tuning mode (gemm_tuned): cublas{S,D}gemm picks its kernel from a built-in heuristic, which
// for GCN's tall-skinny shapes is not the fastest FP32 kernel cuBLAS has: on an H100, 4194304 x
// 128 times 128 x 128 took 3.690 ms through cublasSgemm and 3.280 ms through the second of
// cublasLt's heuristic algorithms, 128 x 32 1.139 against 1.112 (ops/cuda/mxm/NOTES.md, run
// 13). So the first tuned call for a shape times the default path and cublasLt's first
// kLtCandidates algorithms (same compute type: the same FP32 or FP64 arithmetic, only the
// blocking differs) and keeps the fastest for the process.
#include "ops/cuda/gemm/gemm.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {

// One handle of each kind per process, bound to the context's stream; created on first use and
// destroyed by release_device_resources() (recreated by the next call). Callers hold
// context().mutex.
cublasHandle_t g_handle = nullptr;
cublasLtHandle_t g_lt = nullptr;

/// Tuning winners per problem, kept for the process (cleared with the handles).
struct Winner {
  bool lt = false;  ///< false: the cublas{S,D}gemm default path
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace = 0;
  int index = 0;       ///< position in cublasLt's heuristic list
  int candidates = 0;  ///< how many were timed
  double ms = 0.0;
};
/// (element bytes, m, n, k, TF32 allowed, alignments of A, B and C: a winner found for aligned
/// operands may use vector loads that a less aligned call cannot)
using WinnerKey = std::tuple<int, int, int, int, bool, std::uint32_t, std::uint32_t, std::uint32_t>;
std::map<WinnerKey, Winner> g_winners;

void destroy_handles() noexcept {
  if (g_handle != nullptr) cublasDestroy(g_handle);
  if (g_lt != nullptr) cublasLtDestroy(g_lt);
  g_handle = nullptr;
  g_lt = nullptr;
  g_winners.clear();
}
cublasHandle_t handle() {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  if (g_handle == nullptr) {
    cublasHandle_t x = nullptr;
    SPINDLE_CUBLAS_CHECK(cublasCreate(&x));
    if (cublasSetStream(x, context().stream) != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(x);
      SPINDLE_CUBLAS_CHECK(CUBLAS_STATUS_INTERNAL_ERROR);
    }
    g_handle = x;
    on_release(&destroy_handles);
  }
  return g_handle;
}
cublasLtHandle_t lt_handle() {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  if (g_lt == nullptr) {
    cublasLtHandle_t x = nullptr;
    SPINDLE_CUBLAS_CHECK(cublasLtCreate(&x));
    g_lt = x;
    on_release(&destroy_handles);
  }
  return g_lt;
}

/// SPINDLE_GEMM_TF32=1 lets float GEMMs use TF32 tensor cores (about 4x faster on Hopper, inputs
/// rounded to 10-bit mantissas: relative errors near 1e-3 instead of float rounding). Off by
/// default so results match a CPU BLAS; read on every call so a program can compare both.
bool tf32_requested() {
  const char* v = std::getenv("SPINDLE_GEMM_TF32");
  return v != nullptr && v[0] != '\0' && v[0] != '0';
}

int checked_int(std::int64_t v, const char* what) {
  if (v > INT_MAX) {
    throw Unsupported(std::string("gemm: ") + what + " = " + std::to_string(v) +
                      " exceeds cuBLAS's 32-bit dimensions");
  }
  return static_cast<int>(v);
}

/// The largest power of two (at most 256) that divides the address: cublasLt's algorithms
/// assume their operands' alignment (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*).
std::uint32_t alignment_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t al = 256;
  while (al > 1 && a % al != 0) al /= 2;
  return al;
}

/// cublasLt heuristic algorithms timed per shape, and the workspace they may use.
constexpr int kLtCandidates = 8;
constexpr std::size_t kLtMaxWorkspace = std::size_t{64} << 20;
constexpr int kTimedRuns = 3;

/// The cublasLt descriptors of one problem (Cᵀ = Bᵀ·Aᵀ, column-major), freed on scope exit.
struct LtProblem {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t lb = nullptr, la = nullptr, lc = nullptr;
  LtProblem(cudaDataType_t type, cublasComputeType_t compute, cudaDataType_t scale, int m, int n,
            int k) {
    try {
      SPINDLE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, compute, scale));
      SPINDLE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, type, n, k, n));  // Bᵀ: n x k
      SPINDLE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, type, k, m, k));  // Aᵀ: k x m
      SPINDLE_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc, type, n, m, n));  // Cᵀ: n x m
    } catch (...) {
      release();
      throw;
    }
  }
  ~LtProblem() { release(); }
  LtProblem(const LtProblem&) = delete;
  LtProblem& operator=(const LtProblem&) = delete;
  void release() noexcept {
    if (lc != nullptr) cublasLtMatrixLayoutDestroy(lc);
    if (la != nullptr) cublasLtMatrixLayoutDestroy(la);
    if (lb != nullptr) cublasLtMatrixLayoutDestroy(lb);
    if (op != nullptr) cublasLtMatmulDescDestroy(op);
    lc = la = lb = nullptr;
    op = nullptr;
  }
};

template <class T>
struct Types;
template <>
struct Types<float> {
  static constexpr cudaDataType_t data = CUDA_R_32F;
  static cublasComputeType_t compute(bool tf32) {
    return tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }
};
template <>
struct Types<double> {
  static constexpr cudaDataType_t data = CUDA_R_64F;
  static cublasComputeType_t compute(bool) { return CUBLAS_COMPUTE_64F; }
};

/// One GEMM through the default cublas{S,D}gemm path.
template <class T>
cublasStatus_t run_default(int m, int n, int k, const T* a, const T* b, T* c, bool tf32) {
  const T one = T(1);
  const T zero = T(0);
  if constexpr (std::is_same_v<T, float>) {
    const cublasStatus_t st =
        cublasSetMathMode(handle(), tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH);
    if (st != CUBLAS_STATUS_SUCCESS) return st;
    return cublasSgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
  } else {
    (void)tf32;
    return cublasDgemm(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n);
  }
}

/// One GEMM through cublasLt with a given algorithm.
template <class T>
cublasStatus_t run_lt(const LtProblem& p, const cublasLtMatmulAlgo_t& algo, void* ws,
                      std::size_t ws_bytes, const T* a, const T* b, T* c) {
  const T one = T(1);
  const T zero = T(0);
  return cublasLtMatmul(lt_handle(), p.op, &one, b, p.lb, a, p.la, &zero, c, p.lc, c, p.lc, &algo,
                        ws, ws_bytes, context().stream);
}

/// Two CUDA events, destroyed on scope exit.
struct EventPair {
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  EventPair() {
    SPINDLE_CUDA_CHECK(cudaEventCreate(&e0));
    const cudaError_t st = cudaEventCreate(&e1);
    if (st != cudaSuccess) {
      cudaEventDestroy(e0);  // the destructor does not run when the constructor throws
      SPINDLE_CUDA_CHECK(st);
    }
  }
  ~EventPair() {
    if (e0 != nullptr) cudaEventDestroy(e0);
    if (e1 != nullptr) cudaEventDestroy(e1);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

/// Median milliseconds of kTimedRuns runs of f after one untimed run; a negative value when f
/// reports an error (the candidate is skipped).
template <class F>
double time_candidate(F&& f) {
  const cudaStream_t s = context().stream;
  if (f() != CUBLAS_STATUS_SUCCESS) return -1.0;
  EventPair ev;
  std::vector<float> ms;
  for (int r = 0; r < kTimedRuns; ++r) {
    SPINDLE_CUDA_CHECK(cudaEventRecord(ev.e0, s));
    if (f() != CUBLAS_STATUS_SUCCESS) return -1.0;
    SPINDLE_CUDA_CHECK(cudaEventRecord(ev.e1, s));
    SPINDLE_CUDA_CHECK(cudaEventSynchronize(ev.e1));
    float t = 0.0f;
    SPINDLE_CUDA_CHECK(cudaEventElapsedTime(&t, ev.e0, ev.e1));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// Times the default path and cublasLt's heuristic algorithms for this problem (results land in
/// c; the caller runs the winner once more).
template <class T>
Winner tune_problem(int m, int n, int k, const T* a, const T* b, T* c, bool tf32) {
  Winner best;
  best.candidates = 1;
  best.ms = time_candidate([&] { return run_default<T>(m, n, k, a, b, c, tf32); });
  if (best.ms < 0) {
    SPINDLE_CUBLAS_CHECK(run_default<T>(m, n, k, a, b, c, tf32));  // throws with the status
  }
  const cudaDataType_t scale = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
  LtProblem p(Types<T>::data, Types<T>::compute(tf32), scale, m, n, k);
  cublasLtMatmulPreference_t pref = nullptr;
  SPINDLE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  std::vector<cublasLtMatmulHeuristicResult_t> res(kLtCandidates);
  int found = 0;
  const std::uint32_t al_a = alignment_of(b), al_b = alignment_of(a), al_c = alignment_of(c);
  const cublasStatus_t st = [&] {
    cublasStatus_t s = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kLtMaxWorkspace, sizeof kLtMaxWorkspace);
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                               &al_a, sizeof al_a);
    }
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                               &al_b, sizeof al_b);
    }
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                               &al_c, sizeof al_c);
    }
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                               &al_c, sizeof al_c);
    }
    if (s == CUBLAS_STATUS_SUCCESS) {
      s = cublasLtMatmulAlgoGetHeuristic(lt_handle(), p.op, p.lb, p.la, p.lc, p.lc, pref,
                                         kLtCandidates, res.data(), &found);
    }
    return s;
  }();
  cublasLtMatmulPreferenceDestroy(pref);
  // No heuristic result (CUBLAS_STATUS_NOT_SUPPORTED for this shape): the default path stays.
  if (st != CUBLAS_STATUS_SUCCESS) return best;
  for (int i = 0; i < found; ++i) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
    const std::size_t ws_bytes = res[i].workspaceSize;
    DeviceBuffer ws(std::max<std::size_t>(ws_bytes, 1), "gemm tuning workspace");
    const double ms =
        time_candidate([&] { return run_lt<T>(p, res[i].algo, ws.get(), ws_bytes, a, b, c); });
    ++best.candidates;
    if (ms >= 0 && ms < best.ms) {
      best.lt = true;
      best.algo = res[i].algo;
      best.workspace = ws_bytes;
      best.index = i;
      best.ms = ms;
    }
  }
  return best;
}

template <class T>
std::string gemm_impl(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B,
                      bool tune) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const int m = checked_int(A.rows(), "rows of A");
  const int n = checked_int(B.cols(), "columns of B");
  const int k = checked_int(A.cols(), "inner dimension");
  const T* a = device_in(A);
  const T* b = device_in(B);
  T* c = device_out(C, false);
  std::string summary;
  const bool tf32 = std::is_same_v<T, float> && tf32_requested();
  if (m > 0 && n > 0 && k == 0) {
    SPINDLE_CUDA_CHECK(
        cudaMemsetAsync(c, 0, sizeof(T) * static_cast<std::size_t>(m) * n, ctx.stream));
    if (tune) summary = "nothing to tune (inner dimension 0)";
  } else if (m > 0 && n > 0 && !tune) {
    SPINDLE_CUBLAS_CHECK(run_default<T>(m, n, k, a, b, c, tf32));
  } else if (m > 0 && n > 0) {
    const WinnerKey key{static_cast<int>(sizeof(T)),
                        m,
                        n,
                        k,
                        tf32,
                        alignment_of(a),
                        alignment_of(b),
                        alignment_of(c)};
    auto it = g_winners.find(key);
    const bool cached = it != g_winners.end();
    if (!cached) it = g_winners.emplace(key, tune_problem<T>(m, n, k, a, b, c, tf32)).first;
    const Winner& w = it->second;
    if (w.lt) {
      const cudaDataType_t scale = std::is_same_v<T, float> ? CUDA_R_32F : CUDA_R_64F;
      LtProblem p(Types<T>::data, Types<T>::compute(tf32), scale, m, n, k);
      DeviceBuffer ws(std::max<std::size_t>(w.workspace, 1), "gemm workspace");
      SPINDLE_CUBLAS_CHECK(run_lt<T>(p, w.algo, ws.get(), w.workspace, a, b, c));
    } else {
      SPINDLE_CUBLAS_CHECK(run_default<T>(m, n, k, a, b, c, tf32));
    }
    char line[160];
    if (w.lt) {
      std::snprintf(line, sizeof line, "cublasLt algorithm %d", w.index + 1);
    } else {
      std::snprintf(line, sizeof line, "%s",
                    std::is_same_v<T, float> ? "cublasSgemm" : "cublasDgemm");
    }
    summary = line;
    if (cached) {
      summary += " (cached: nothing timed)";
    } else {
      std::snprintf(line, sizeof line, ": fastest of %d candidates (%.4f ms)", w.candidates, w.ms);
      summary += line;
    }
  } else if (tune) {
    summary = "nothing to tune (empty product)";
  }
  mark_written(C);
  return summary;
}

}  // namespace

template <class T>
void gemm(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B) {
  gemm_impl(C, A, B, false);
}

template <class T>
std::string gemm_tuned(DenseMatrix<T>& C, const DenseMatrix<T>& A, const DenseMatrix<T>& B) {
  return gemm_impl(C, A, B, true);
}

template void gemm<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                          const DenseMatrix<float>&);
template void gemm<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                           const DenseMatrix<double>&);
template std::string gemm_tuned<float>(DenseMatrix<float>&, const DenseMatrix<float>&,
                                       const DenseMatrix<float>&);
template std::string gemm_tuned<double>(DenseMatrix<double>&, const DenseMatrix<double>&,
                                        const DenseMatrix<double>&);

}  // namespace spindle::detail::cuda
