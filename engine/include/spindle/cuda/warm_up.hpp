// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file warm_up.hpp
/// @brief Creating the CUDA context ahead of the first operation. The first CUDA call of a process
/// creates the device's context, which took 0.34 s on an H200 host
/// (a first GPU PageRank's set-up). A program that knows it will use CUDA can start
/// that work on a background thread and overlap it with its own (the CLI does so while it reads
/// the input file). Plain C++; in a build without CUDA both calls do nothing.

namespace spindle {

/// Starts creating the CUDA context, Spindle's stream and its memory pool settings on a
/// background thread, once per process (later calls do nothing). A CUDA operation that arrives
/// first waits for the same initialization. It does nothing when no CUDA device is visible.
/// Errors are not reported here: the first operation on CUDA reports them as before.
void cuda_warm_up_start();

/// Waits for a warm-up started by cuda_warm_up_start() to finish (returns at once if none was
/// started). Call it before the process exits, so that no thread is still creating the context
/// while static objects are destroyed.
void cuda_warm_up_wait() noexcept;

}  // namespace spindle
