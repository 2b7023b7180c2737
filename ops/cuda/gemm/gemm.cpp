// SPDX-License-Identifier: Apache-2.0
// cuBLAS GEMM for row-major dense matrices (gemm.hpp). cuBLAS is column-major: a row-major
// m x n matrix is its column-major n x m transpose, so C = A·B is computed as Cᵀ = Bᵀ·Aᵀ with
// no data movement.
//
// Tuning mode (gemm_tuned): cublas{S,D}gemm picks its kernel from a built-in heuristic, which
// for GCN's tall-skinny shapes is not the fastest FP32 kernel cuBLAS has: on an H100, 4194304 x
// 128 times 128 x 128 took 3.690 ms through cublasSgemm and 3.280 ms through the second of
// cublasLt's heuristic algorithms, 128 x 32 1.139 against 1.112 (docs/design/gemm.md).
// So the first tuned call for a shape times the default path and cublasLt's first
// kLtCandidates algorithms (same compute type: the same FP32 or FP64 arithmetic, only the
// blocking differs) and keeps the fastest for the process.
//
// Float products that split_tf32_applies() accepts run on our split-TF32 kernel
// (split_tf32.hpp: FP32 accuracy on tensor cores) unless SPINDLE_GEMM_SPLIT_TF32=0; tuning mode
// times it beside cuBLAS's candidates.
#include "ops/cuda/gemm/gemm.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/cuda/gemm/split_tf32.hpp"
#include "spindle/error.hpp"
#include "spindle/plan.hpp"

namespace spindle::detail::cuda {
namespace {

// One handle of each kind per process, bound to the context's stream; created on first use and
// destroyed by release_device_resources() (recreated by the next call). Callers hold
// context().mutex.
cublasHandle_t g_handle = nullptr;
cublasLtHandle_t g_lt = nullptr;

/// The cublasLt descriptors of one problem (Cᵀ = Bᵀ·Aᵀ, column-major), freed on scope exit.
struct LtProblem {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t lb = nullptr, la = nullptr, lc = nullptr;
  /// type: the data and scale type; compute: the arithmetic (FP32, TF32 or FP64).
  LtProblem(cudaDataType_t type, cublasComputeType_t compute, int m, int n, int k) {
    try {
      SPINDLE_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op, compute, type));
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

/// Tuning winners per problem, kept for the process (cleared with the handles).
struct Winner {
  enum class Kind { Default, Lt, Split };
  /// Default: the cublas{S,D}gemm path; Lt: a cublasLt algorithm; Split: gemm_split_tf32.
  Kind kind = Kind::Default;
  /// The cublasLt winner's descriptors, made once when it was tuned and reused by every later
  /// call of the same problem.
  std::shared_ptr<const LtProblem> problem;
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace = 0;
  int index = 0;       ///< position in cublasLt's heuristic list
  int candidates = 0;  ///< how many were timed
  double ms = 0.0;
};
/// (element bytes, m, n, k, TF32 allowed, split-TF32 allowed, alignments of A, B and C: a winner
/// found for aligned operands may use vector loads that a less aligned call cannot)
using WinnerKey =
    std::tuple<int, int, int, int, bool, bool, std::uint32_t, std::uint32_t, std::uint32_t>;
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

/// An on/off switch from the environment, read on every call so a program can compare both
/// settings: unset or empty gives `fallback`, a value starting with '0' off, anything else on.
bool env_switch(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || v[0] == '\0') return fallback;
  return v[0] != '0';
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

/// A cublasLt matmul preference, freed on scope exit.
struct LtPreference {
  cublasLtMatmulPreference_t p = nullptr;
  LtPreference() { SPINDLE_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&p)); }
  ~LtPreference() {
    if (p != nullptr) cublasLtMatmulPreferenceDestroy(p);
  }
  LtPreference(const LtPreference&) = delete;
  LtPreference& operator=(const LtPreference&) = delete;
  template <class V>
  void set(cublasLtMatmulPreferenceAttributes_t attr, const V& v) {
    SPINDLE_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(p, attr, &v, sizeof v));
  }
};

template <class T>
struct Types;
template <>
struct Types<float> {
  static constexpr cudaDataType_t data = CUDA_R_32F;  // also the scale type (alpha, beta)
  static cublasComputeType_t compute(bool tf32) {
    return tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }
};
template <>
struct Types<double> {
  static constexpr cudaDataType_t data = CUDA_R_64F;  // also the scale type
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

/// Median milliseconds of kTimedRuns back-to-back runs of f after one untimed run (engine
/// timing: device time, not the host's launch gaps); nullopt with the status in *failed when f
/// reports an error.
template <class F>
std::optional<double> time_candidate(F&& f, cublasStatus_t* failed) {
  cublasStatus_t st = f();
  if (st == CUBLAS_STATUS_SUCCESS) {
    const std::vector<float> ms = time_runs(
        [&] {
          const cublasStatus_t r = f();
          if (r != CUBLAS_STATUS_SUCCESS) st = r;
        },
        0, kTimedRuns);
    if (st == CUBLAS_STATUS_SUCCESS) return median(ms);
  }
  *failed = st;
  return std::nullopt;
}

/// cublasLt's heuristic list for the problem (at most kLtCandidates; empty when cublasLt has no
/// algorithm for it), for operands of the given pointers' alignments.
template <class T>
std::vector<cublasLtMatmulHeuristicResult_t> lt_heuristics(const LtProblem& p, const T* a,
                                                           const T* b, const T* c) {
  const cublasLtHandle_t lt = lt_handle();
  LtPreference pref;
  pref.set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kLtMaxWorkspace);
  pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignment_of(b));  // cublasLt's A is Bᵀ
  pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignment_of(a));
  pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignment_of(c));
  pref.set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignment_of(c));
  std::vector<cublasLtMatmulHeuristicResult_t> res(kLtCandidates);
  int found = 0;
  const cublasStatus_t st = cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.lb, p.la, p.lc, p.lc, pref.p,
                                                           kLtCandidates, res.data(), &found);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED) return {};
  SPINDLE_CUBLAS_CHECK(st);
  res.resize(static_cast<std::size_t>(std::max(found, 0)));
  return res;
}

/// Times the default path and cublasLt's heuristic algorithms for this problem (results land in
/// c; the caller runs the winner once more). Candidates that fail or find no room for their
/// workspace are skipped; the default path must work.
template <class T>
Winner tune_problem(int m, int n, int k, const T* a, const T* b, T* c, bool tf32, bool split) {
  Winner best;
  cublasStatus_t failed = CUBLAS_STATUS_SUCCESS;
  const std::optional<double> base =
      time_candidate([&] { return run_default<T>(m, n, k, a, b, c, tf32); }, &failed);
  if (!base) SPINDLE_CUBLAS_CHECK(failed);
  best.ms = *base;
  best.candidates = 1;
  if constexpr (std::is_same_v<T, float>) {
    if (split) {
      const std::optional<double> ms = time_candidate(
          [&] {
            gemm_split_tf32(m, n, k, a, b, c, context().stream);
            return CUBLAS_STATUS_SUCCESS;
          },
          &failed);
      ++best.candidates;
      if (ms && *ms < best.ms) {
        best.kind = Winner::Kind::Split;
        best.ms = *ms;
      }
    }
  }
  auto problem =
      std::make_shared<const LtProblem>(Types<T>::data, Types<T>::compute(tf32), m, n, k);
  const LtProblem& p = *problem;
  const auto res = lt_heuristics<T>(p, a, b, c);
  for (std::size_t i = 0; i < res.size(); ++i) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
    const std::size_t ws_bytes = res[i].workspaceSize;
    std::optional<double> ms;
    try {
      DeviceBuffer ws(std::max<std::size_t>(ws_bytes, 1), "gemm tuning workspace");
      ms = time_candidate([&] { return run_lt<T>(p, res[i].algo, ws.get(), ws_bytes, a, b, c); },
                          &failed);
    } catch (const OutOfMemory&) {
      continue;  // no room for this algorithm's workspace: the others still compete
    }
    if (!ms) continue;
    ++best.candidates;
    if (*ms < best.ms) {
      best.kind = Winner::Kind::Lt;
      best.problem = problem;
      best.algo = res[i].algo;
      best.workspace = ws_bytes;
      best.index = static_cast<int>(i);
      best.ms = *ms;
    }
  }
  return best;
}

std::atomic<int> g_force_lt{-1};

/// The test hook's path: runs the index-th algorithm of cublasLt's heuristic list, untimed.
template <class T>
std::string run_forced_lt(int index, int m, int n, int k, const T* a, const T* b, T* c, bool tf32) {
  LtProblem p(Types<T>::data, Types<T>::compute(tf32), m, n, k);
  const auto res = lt_heuristics<T>(p, a, b, c);
  if (index >= static_cast<int>(res.size())) {
    throw InvalidArgument("gemm: debug_gemm_force_lt(" + std::to_string(index) +
                          "): cublasLt has " + std::to_string(res.size()) +
                          " algorithms for this problem");
  }
  const auto& r = res[static_cast<std::size_t>(index)];
  SPINDLE_CUBLAS_CHECK(r.state);
  DeviceBuffer ws(std::max<std::size_t>(r.workspaceSize, 1), "gemm workspace");
  SPINDLE_CUBLAS_CHECK(run_lt<T>(p, r.algo, ws.get(), r.workspaceSize, a, b, c));
  return "cublasLt algorithm " + std::to_string(index + 1) + " of " + std::to_string(res.size()) +
         " (forced by debug_gemm_force_lt)";
}

/// The SPINDLE_LOG=plan line of an untuned product: which path runs it, and why.
template <class T>
void log_choice(int m, int n, int k, bool split, bool tf32) {
  const char* type = std::is_same_v<T, float> ? "float" : "double";
  std::string why;
  if (split) {
    why = std::string("split-TF32 kernel (") + split_tf32_blocking(n, k) +
          "): FP32 accuracy on tensor cores";
  } else if (!std::is_same_v<T, float>) {
    why = "cublasDgemm";
  } else if (tf32) {
    why = "cublasSgemm with TF32 tensor cores (SPINDLE_GEMM_TF32=1: about 1e-3 relative error)";
  } else if (!gemm_split_tf32_allowed()) {
    why = "cublasSgemm (SPINDLE_GEMM_SPLIT_TF32=0)";
  } else {
    why =
        "cublasSgemm (the split-TF32 kernel needs k and n multiples of 4, 16-byte aligned "
        "operands and sm_80+)";
  }
  std::fprintf(stderr, "[spindle plan] gemm %dx%dx%d %s: %s\n", m, k, n, type, why.c_str());
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
  const bool tf32 = std::is_same_v<T, float> && gemm_tf32_requested();
  // The split-TF32 kernel is an FP32-accuracy path: not used when TF32 proper was asked for.
  bool split = false;
  if constexpr (std::is_same_v<T, float>) {
    split = !tf32 && gemm_split_tf32_allowed() && split_tf32_applies(m, n, k, a, b, c);
  }
  if (m > 0 && n > 0 && k == 0) {
    SPINDLE_CUDA_CHECK(
        cudaMemsetAsync(c, 0, sizeof(T) * static_cast<std::size_t>(m) * n, ctx.stream));
    if (tune) summary = "nothing to tune (inner dimension 0)";
  } else if (m > 0 && n > 0 && !tune) {
    if (plan_logging_enabled()) log_choice<T>(m, n, k, split, tf32);
    if constexpr (std::is_same_v<T, float>) {
      if (split) {
        gemm_split_tf32(m, n, k, a, b, c, ctx.stream);
        mark_written(C);
        return summary;
      }
    }
    SPINDLE_CUBLAS_CHECK(run_default<T>(m, n, k, a, b, c, tf32));
  } else if (m > 0 && n > 0) {
    if (const int forced = g_force_lt.load(); forced >= 0) {
      summary = run_forced_lt<T>(forced, m, n, k, a, b, c, tf32);
      mark_written(C);
      return summary;
    }
    const WinnerKey key{static_cast<int>(sizeof(T)),
                        m,
                        n,
                        k,
                        tf32,
                        split,
                        alignment_of(a),
                        alignment_of(b),
                        alignment_of(c)};
    auto it = g_winners.find(key);
    const bool cached = it != g_winners.end();
    if (!cached) {
      // The candidates are timed into a scratch product, not into C: the winner's workspace is
      // allocated after tuning, and a failure there must leave C as it was. (One more m x n
      // buffer, on the first call of a shape only; cudaMalloc aligns it as C's device copy.)
      DeviceBuffer trial(sizeof(T) * static_cast<std::size_t>(m) * static_cast<std::size_t>(n),
                         "gemm tuning product");
      it = g_winners.emplace(key, tune_problem<T>(m, n, k, a, b, trial.as<T>(), tf32, split)).first;
    }
    const Winner& w = it->second;
    if (w.kind == Winner::Kind::Lt) {
      DeviceBuffer ws(std::max<std::size_t>(w.workspace, 1), "gemm workspace");
      SPINDLE_CUBLAS_CHECK(run_lt<T>(*w.problem, w.algo, ws.get(), w.workspace, a, b, c));
    } else if (w.kind == Winner::Kind::Split) {
      if constexpr (std::is_same_v<T, float>) gemm_split_tf32(m, n, k, a, b, c, ctx.stream);
    } else {
      SPINDLE_CUBLAS_CHECK(run_default<T>(m, n, k, a, b, c, tf32));
    }
    char line[160];
    if (w.kind == Winner::Kind::Lt) {
      std::snprintf(line, sizeof line, "cublasLt algorithm %d", w.index + 1);
    } else if (w.kind == Winner::Kind::Split) {
      std::snprintf(line, sizeof line, "split-TF32 kernel");
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

bool gemm_tf32_requested() noexcept { return env_switch("SPINDLE_GEMM_TF32", false); }
bool gemm_split_tf32_allowed() noexcept { return env_switch("SPINDLE_GEMM_SPLIT_TF32", true); }

void debug_gemm_force_lt(int index) noexcept { g_force_lt.store(index >= 0 ? index : -1); }

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
