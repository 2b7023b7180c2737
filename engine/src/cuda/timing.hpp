// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file timing.hpp
/// @brief GPU timing of enqueued work with CUDA events on Spindle's stream (benchmark and tuning
/// mode). Internal to CUDA builds.
///
/// A short spin kernel is enqueued first, so that the host can enqueue every timed run while the
/// GPU is still busy: the runs then execute back to back and each event pair measures device
/// time only, not the host's launch overhead (which would otherwise dominate small graphs).

#include <functional>
#include <vector>

namespace spindle::detail::cuda {

/// Runs `enqueue` `warmup` times, then `reps` times between event pairs; returns each timed run's
/// milliseconds. `enqueue` must only enqueue work on context().stream (no synchronization).
std::vector<float> time_runs(const std::function<void()>& enqueue, int warmup, int reps);

/// Median of a sample (0 for an empty one).
double median(std::vector<float> v);

}  // namespace spindle::detail::cuda
