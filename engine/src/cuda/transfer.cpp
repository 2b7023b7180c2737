// SPDX-License-Identifier: Apache-2.0
// Staged host <-> device copies (transfer.hpp).
#include "engine/src/cuda/transfer.hpp"

#include <cuda_runtime.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"

namespace spindle::detail::cuda {
namespace {

// Two pinned buffers, each with an event recorded after the last DMA that used it. Made on the
// first staged copy; freed by release_device_resources(). A copy holds the mutex throughout.
struct Staging {
  std::mutex mutex;
  void* buf[2] = {nullptr, nullptr};
  cudaEvent_t done[2] = {nullptr, nullptr};
  bool tried = false;  // made once; a failure leaves buf null and every copy unstaged
  bool ready() const { return buf[0] != nullptr; }
};

Staging& staging() {
  static Staging s;
  return s;
}

void release_staging() noexcept {
  Staging& s = staging();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (int b = 0; b < 2; ++b) {
    if (s.done[b] != nullptr) {
      cudaEventSynchronize(s.done[b]);
      cudaEventDestroy(s.done[b]);
    }
    if (s.buf[b] != nullptr) cudaFreeHost(s.buf[b]);
    s.buf[b] = nullptr;
    s.done[b] = nullptr;
  }
  s.tried = false;
}

// Makes the buffers if not tried yet (hold the mutex). Pinned memory is a nicety here: when it
// cannot be had (cudaHostAlloc fails, say under a locked-memory limit) copies go unstaged.
void make_staging(Staging& s) {
  if (s.tried) return;
  s.tried = true;
  for (int b = 0; b < 2; ++b) {
    if (cudaHostAlloc(&s.buf[b], kStagingChunk, cudaHostAllocDefault) != cudaSuccess) {
      s.buf[b] = nullptr;
    }
    if (s.buf[b] == nullptr ||
        cudaEventCreateWithFlags(&s.done[b], cudaEventDisableTiming) != cudaSuccess) {
      (void)cudaGetLastError();  // the failure is handled: leave no error for the next check
      for (int c = 0; c <= b; ++c) {
        if (s.buf[c] != nullptr) cudaFreeHost(s.buf[c]);
        if (s.done[c] != nullptr) cudaEventDestroy(s.done[c]);
        s.buf[c] = nullptr;
        s.done[c] = nullptr;
      }
      return;
    }
  }
}

// memcpy of one chunk with the host's threads (one thread per MB, at most all of them).
void host_copy(void* dst, const void* src, std::size_t bytes) {
  constexpr std::size_t kPerThread = std::size_t{1} << 20;
  const int threads = static_cast<int>(std::max<std::size_t>(
      1,
      std::min<std::size_t>(static_cast<std::size_t>(omp_get_max_threads()), bytes / kPerThread)));
  if (threads == 1) {
    std::memcpy(dst, src, bytes);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static, 1)
  for (int t = 0; t < threads; ++t) {
    const std::size_t lo = bytes * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t hi =
        bytes * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    std::memcpy(static_cast<char*>(dst) + lo, static_cast<const char*>(src) + lo, hi - lo);
  }
}

// The staging buffers locked for a copy of `bytes`, or no lock when the copy goes straight
// (below kStagedCopyMinBytes, or no pinned memory could be had).
std::unique_lock<std::mutex> lock_staging_for(std::size_t bytes) {
  if (bytes < kStagedCopyMinBytes) return {};
  // Registered once, before the staging mutex is taken: release_device_resources() holds the
  // registry's mutex while it calls release_staging, which takes the staging mutex, so taking
  // them the other way round could deadlock.
  static const bool registered = (on_release(release_staging), true);
  (void)registered;
  Staging& s = staging();
  std::unique_lock<std::mutex> lock(s.mutex);
  make_staging(s);
  if (!s.ready()) return {};
  return lock;
}

}  // namespace

void copy_to_device(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::unique_lock<std::mutex> lock = lock_staging_for(bytes);
  if (!lock.owns_lock()) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
    return;
  }
  Staging& s = staging();
  std::size_t off = 0;
  for (int b = 0; off < bytes; b ^= 1) {
    const std::size_t n = std::min(kStagingChunk, bytes - off);
    // The buffer's previous DMA (this copy's chunk before last, or an earlier copy's) is done.
    SPINDLE_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
    host_copy(s.buf[b], static_cast<const char*>(src) + off, n);
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + off, s.buf[b], n,
                                       cudaMemcpyHostToDevice, stream));
    SPINDLE_CUDA_CHECK(cudaEventRecord(s.done[b], stream));
    off += n;
  }
}

void copy_to_host(void* dst, const void* src, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  const std::unique_lock<std::mutex> lock = lock_staging_for(bytes);
  if (!lock.owns_lock()) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
    SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  Staging& s = staging();
  // Chunk c's DMA goes out before chunk c-1 is copied out of its buffer.
  const std::size_t chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
  auto chunk_bytes = [&](std::size_t c) {
    return std::min(kStagingChunk, bytes - c * kStagingChunk);
  };
  auto enqueue = [&](std::size_t c) {
    const int b = static_cast<int>(c & 1);
    // An earlier upload's DMA out of this buffer (perhaps on another stream) comes first.
    SPINDLE_CUDA_CHECK(cudaStreamWaitEvent(stream, s.done[b], 0));
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(s.buf[b], static_cast<const char*>(src) + c * kStagingChunk,
                                       chunk_bytes(c), cudaMemcpyDeviceToHost, stream));
    SPINDLE_CUDA_CHECK(cudaEventRecord(s.done[b], stream));
  };
  enqueue(0);
  for (std::size_t c = 0; c < chunks; ++c) {
    if (c + 1 < chunks) enqueue(c + 1);
    const int b = static_cast<int>(c & 1);
    SPINDLE_CUDA_CHECK(cudaEventSynchronize(s.done[b]));
    host_copy(static_cast<char*>(dst) + c * kStagingChunk, s.buf[b], chunk_bytes(c));
  }
}

}  // namespace spindle::detail::cuda
