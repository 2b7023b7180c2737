// SPDX-License-Identifier: Apache-2.0
// Device memory, the memory check before large allocations, and the CUDA context.
#include "engine/src/cuda/device_buffer.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "spindle/debug/allocation.hpp"
#include "spindle/error.hpp"

namespace spindle::detail::cuda {
namespace {
// Below this, cudaMemGetInfo (a driver round trip of a few microseconds) costs more than it
// could save: such a buffer either fits or cudaMallocAsync reports the failure itself.
constexpr std::uint64_t kCheckFreeAbove = 16ull << 20;
}  // namespace

namespace {
// Free device memory including what the stream-ordered pool holds for reuse.
std::uint64_t free_device_bytes() {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  std::uint64_t pooled = 0;
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    std::uint64_t reserved = 0, used = 0;
    if (cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
            cudaSuccess &&
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
        reserved > used) {
      pooled = reserved - used;
    }
  }
  cudaGetLastError();
  return static_cast<std::uint64_t>(free_b) + pooled;
}
}  // namespace

void check_device_memory(std::uint64_t bytes, const char* what) {
  const std::uint64_t free_b = free_device_bytes();
  if (bytes > free_b) {
    throw OutOfMemory(out_of_memory_message(bytes, free_b, what, MemorySpace::Device));
  }
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) {
  if (bytes == 0) return;
  check_allocation(bytes, what, MemorySpace::Device);
  if (bytes >= kCheckFreeAbove) check_device_memory(bytes, what);
  Context& ctx = context();
  void* p = nullptr;
  const cudaError_t e = cudaMallocAsync(&p, bytes, ctx.stream);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw OutOfMemory(out_of_memory_message(bytes, free_device_bytes(), what, MemorySpace::Device));
  }
  SPINDLE_CUDA_CHECK(e);
  ptr_ = p;
  bytes_ = bytes;
}

void DeviceBuffer::release() noexcept {
  if (ptr_ != nullptr) {
    // At process exit the runtime may already be gone (cudaErrorCudartUnloading): nothing to do.
    if (cudaFreeAsync(ptr_, context().stream) != cudaSuccess) cudaGetLastError();
    ptr_ = nullptr;
    bytes_ = 0;
  }
}

void* Context::scratch(std::size_t bytes) {
  scratch_.ensure(bytes, "CUDA scratch workspace");
  return scratch_.get();
}

void Context::synchronize() { SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream)); }

void* Context::input_scratch(std::size_t bytes) {
  input_scratch_.ensure(bytes, "CUDA input scratch");
  return input_scratch_.get();
}

void Context::release_scratch() noexcept {
  scratch_.release();
  input_scratch_.release();
}

namespace {
std::atomic<bool> g_context_created{false};
std::mutex g_release_mutex;
std::vector<void (*)() noexcept>& release_fns() {
  static auto* fns = new std::vector<void (*)() noexcept>();  // immortal, like the context
  return *fns;
}
}  // namespace

void on_release(void (*fn)() noexcept) {
  std::lock_guard<std::mutex> lock(g_release_mutex);
  auto& fns = release_fns();
  if (std::find(fns.begin(), fns.end(), fn) == fns.end()) fns.push_back(fn);
}

Context& context() {
  static Context* ctx = [] {
    auto* c = new Context();
    SPINDLE_CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    // Keep freed pool memory for reuse instead of returning it at every synchronization:
    // iterative algorithms allocate the same sizes again and again.
    int dev = 0;
    cudaMemPool_t pool = nullptr;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
      std::uint64_t keep = ~0ull;
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    cudaGetLastError();
    g_context_created.store(true);
    return c;
  }();
  return *ctx;
}

}  // namespace spindle::detail::cuda

namespace spindle {

void release_device_resources() noexcept {
  using namespace detail::cuda;
  if (!g_context_created.load()) return;  // nothing was ever created
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> op_lock(ctx.mutex);
  cudaStreamSynchronize(ctx.stream);  // kernels may still use the scratch space
  ctx.release_scratch();
  {
    std::lock_guard<std::mutex> lock(g_release_mutex);
    for (auto fn : release_fns()) fn();
  }
  cudaStreamSynchronize(ctx.stream);  // stream-ordered frees complete
  // Give the pool's cached (freed) memory back to the driver as well.
  int dev = 0;
  cudaMemPool_t pool = nullptr;
  if (cudaGetDevice(&dev) == cudaSuccess &&
      cudaDeviceGetDefaultMemPool(&pool, dev) == cudaSuccess) {
    cudaMemPoolTrimTo(pool, 0);
  }
  cudaGetLastError();
}

}  // namespace spindle
