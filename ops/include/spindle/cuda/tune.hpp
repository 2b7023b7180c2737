// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tune.hpp
/// @brief Tuning mode for mxv on CUDA (the seeds' "profile offline" path): time the candidate
/// kernels once for a graph and keep the winner. Plain C++; in a build without CUDA the entry
/// throws Unsupported.
///
/// After tune_mxv<S>(A), every CUDA mxv over A's rows with semiring kind S::kind and value type
/// T that has no mask, no accumulator and a full input (the PageRank / SpMV case) and no kernel
/// forced by the descriptor runs the winner instead of the planner's rule-based pick; with
/// SPINDLE_LOG=plan that run logs "(tuned)". For vxm over A, tune A.transpose() (vxm pulls over
/// the transpose's rows). The winner lives in memory with the graph and, with a plan-cache file,
/// on disk keyed by a fingerprint of the graph and the device, so later processes skip timing.

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

struct TuneOptions {
  /// Timed runs per candidate (the median is compared), after two warm-up runs.
  int repetitions = 7;
  /// A text file of winners keyed by fingerprint ("" = memory only). Read before timing; the
  /// new winner is added to it atomically (written to a temporary file, then renamed).
  std::string plan_cache;
};

struct TuneResult {
  Plan best;                ///< the winner (best.tuned = true)
  double best_ms = 0.0;     ///< its median time (0 when it came from a cache)
  bool from_cache = false;  ///< found in memory or in the plan-cache file: nothing was timed
  std::string fingerprint;  ///< n, nnz, sampled structure hash, types, semiring, device
  /// Every candidate with its median milliseconds (empty when from_cache).
  std::vector<std::pair<Plan, double>> candidates;
};

/// One line for people: "row_block items=1024 tile=1: fastest of 14 candidates (0.5012 ms)", or
/// "... (cached)" when nothing was timed.
inline std::string tune_summary(const TuneResult& r) {
  std::string s = r.best.kernel_name();
  if (const std::string p = to_string(r.best.params); !p.empty()) s += " " + p;
  if (r.from_cache) return s + " (cached: nothing timed)";
  char tail[96];
  std::snprintf(tail, sizeof tail, ": fastest of %zu candidates (%.4f ms)", r.candidates.size(),
                r.best_ms);
  return s + tail;
}

/// Times the CUDA mxv candidates (each kernel over a range of launch parameters) for
/// w = A ⊕.⊗ u with semiring S and caches the winner on A (see the file comment).
/// @throws Unsupported without CUDA or a device; DeviceError / OutOfMemory from the runs;
///         InvalidArgument when the plan-cache file exists but cannot be parsed.
template <class S, class I, class V>
TuneResult tune_mxv(const Graph<I, V>& A, const TuneOptions& options = {});

/// The fingerprint tune_mxv uses for (A, S) on the current device.
/// tune_mxv for the product vxm runs (a pull over the rows of A^T): A's transpose is built as vxm
/// builds it on CUDA (sorted on the device) and tuned; vxm calls over A then run the winner.
template <class S, class I, class V>
TuneResult tune_vxm(const Graph<I, V>& A, const TuneOptions& options = {});

template <class S, class I, class V>
std::string mxv_fingerprint(const Graph<I, V>& A);

/// Tuning mode for mxm on CUDA (defined with the CUDA mxm entries, ops/cuda/mxm): times the
/// SpMM candidates (every kernel; both forms of nnz_balanced_seq) once for C = A ⊕.⊗ B with B of
/// width n (random data), and caches the winner on A. Later CUDA mxm calls over A with this (n,
/// semiring kind, value type) and no forced kernel run the winner (logged with "tuned" under
/// SPINDLE_LOG=plan). For transpose_a, tune A.transpose(). The cache is in memory
/// (options.plan_cache is not used for mxm).
/// @throws Unsupported without CUDA or a device; DeviceError / OutOfMemory from the runs.
template <class S, class I, class V>
TuneResult tune_mxm(const Graph<I, V>& A, std::int64_t n, const TuneOptions& options = {});

/// The same for sddmm over the pattern of S with inner dimension k (vct, iir, wmt).
template <class Sr, class I, class V>
TuneResult tune_sddmm(const Graph<I, V>& S, std::int64_t k, const TuneOptions& options = {});

}  // namespace spindle
