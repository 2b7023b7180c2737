// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device_buffer.hpp
/// @brief RAII device memory and the per-process CUDA context (stream, scratch workspace).
/// Internal to CUDA builds; host headers never include this.
///
/// Memory comes from the stream-ordered allocator (cudaMallocAsync / cudaFreeAsync on the
/// context's stream): plain device memory, never managed memory. Plain cudaFree synchronizes the
/// whole device, which iterative algorithms that create temporaries every iteration would pay
/// each time; the stream-ordered pool frees without a device-wide synchronization.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/transfer.hpp"

namespace spindle::detail::cuda {

/// Throws OutOfMemory ("<what>: needs X GB, Y GB free on the GPU") when `bytes` is more than the
/// device has free right now (cudaMemGetInfo). Cheap enough to call before each large allocation.
void check_device_memory(std::uint64_t bytes, const char* what);

/// Owns `bytes` of device memory. Move-only; freeing never throws.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  /// Allocates `bytes` (0: no allocation). Goes through the allocation debug hook and
  /// check_device_memory. @throws OutOfMemory, DeviceError.
  DeviceBuffer(std::size_t bytes, const char* what);
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) {
    o.ptr_ = nullptr;
    o.bytes_ = 0;
  }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = o.ptr_;
      bytes_ = o.bytes_;
      o.ptr_ = nullptr;
      o.bytes_ = 0;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const noexcept { return ptr_; }
  template <class T>
  T* as() const noexcept {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const noexcept { return bytes_; }
  /// Makes the buffer at least `bytes` long; the contents are NOT kept when it grows.
  void ensure(std::size_t bytes, const char* what) {
    if (bytes > bytes_) *this = DeviceBuffer(bytes, what);
  }
  void release() noexcept;

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A device copy of `v` (a buffer of exactly its bytes; none for an empty vector) with the copy
/// enqueued on `stream` (staged through pinned buffers when large: transfer.hpp). `v` may change
/// once this returns; the device copy completes in stream order.
template <class X>
DeviceBuffer upload_async(const std::vector<X>& v, const char* what, cudaStream_t stream) {
  DeviceBuffer b(v.size() * sizeof(X), what);
  copy_to_device(b.get(), v.data(), b.bytes(), stream);
  return b;
}

/// The CUDA "executor": one non-blocking stream on which every Spindle operation, transfer and
/// allocation is ordered, and a grow-only scratch workspace for kernels' temporary storage.
/// Operations hold `mutex` while they use the scratch space, so host threads may call
/// operations concurrently (they serialize on the one stream).
struct Context {
  cudaStream_t stream = nullptr;
  std::recursive_mutex mutex;
  /// Scratch of at least `bytes` (valid until the next scratch() call; hold `mutex`).
  void* scratch(std::size_t bytes);
  /// A second grow-only scratch for an operation's input in another order (mxv's relabelled u),
  /// separate from scratch() so both can be live in one call (same rules).
  void* input_scratch(std::size_t bytes);
  /// Blocks until everything enqueued so far has run (checked).
  void synchronize();
  /// Frees both scratch workspaces (after the stream has drained; hold `mutex`).
  void release_scratch() noexcept;

 private:
  DeviceBuffer scratch_;
  DeviceBuffer input_scratch_;
};

/// Registers `fn` to run in release_device_resources() (once per distinct fn): holders of
/// lazily created library handles register their destroy function when they create a handle.
void on_release(void (*fn)() noexcept);

/// The process-wide context for the current device (created on first use, never destroyed so
/// that static objects freeing device memory at exit find it).
Context& context();

}  // namespace spindle::detail::cuda
