// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file tuning.hpp
/// @brief Tuning mode of mxm / sddmm (the seeds' "profile offline" path): timing candidates with
/// CUDA events and caching the winner on the graph, keyed by (op, width, semiring, value type,
/// pattern or values). The CUDA entries run a cached winner instead of the planner's rule-based
/// pick when no kernel is forced. Host code for CUDA builds (CUDA runtime API only).

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/timing.hpp"
#include "ops/core/tuned.hpp"
#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// Median milliseconds of `reps` back-to-back calls of f after one untimed call (which builds
/// cached partitions / reorderings), timed by the engine's time_runs: device time only, so
/// that the host's planning and launch work does not decide between kernels of a few
/// microseconds (as the benchmarks time them). f must enqueue on context().stream.
template <class F>
double median_ms(F&& f, int reps) {
  return median(time_runs(std::forward<F>(f), 1, reps));
}

/// The fastest of timed candidates as a tuned Plan whose reason lists every time.
inline Plan pick_tuned(std::vector<std::pair<Plan, double>> timed, const std::string& what,
                       std::string (*label)(const Plan&)) {
  std::string report;
  std::size_t best = 0;
  for (std::size_t i = 0; i < timed.size(); ++i) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.3g ms", report.empty() ? "" : ", ",
                  label(timed[i].first).c_str(), timed[i].second);
    report += buf;
    if (timed[i].second < timed[best].second) best = i;
  }
  Plan p = timed[best].first;
  p.tuned = true;
  p.forced = false;
  p.reason = "tuned " + what + ": " + report;
  return p;
}

}  // namespace spindle::detail::cuda
