// SPDX-License-Identifier: Apache-2.0
// The background creation of the CUDA context (spindle/cuda/warm_up.hpp).
#include "spindle/cuda/warm_up.hpp"

#include <mutex>
#include <thread>

#include "engine/src/cuda/device_buffer.hpp"
#include "spindle/executor.hpp"

namespace spindle {
namespace {

std::mutex g_warm_up_mutex;
std::thread* g_warm_up = nullptr;  // never deleted: joined by cuda_warm_up_wait()

}  // namespace

void cuda_warm_up_start() {
  std::lock_guard<std::mutex> lock(g_warm_up_mutex);
  if (g_warm_up != nullptr || !cuda_available()) return;
  g_warm_up = new std::thread([] {
    try {
      (void)device_caps();
      (void)detail::cuda::context();  // thread-safe static: a concurrent first call waits
    } catch (...) {
      // The first operation on CUDA meets the same failure and reports it.
    }
  });
}

void cuda_warm_up_wait() noexcept {
  std::lock_guard<std::mutex> lock(g_warm_up_mutex);
  if (g_warm_up != nullptr && g_warm_up->joinable()) g_warm_up->join();
}

}  // namespace spindle
