// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file external.hpp
/// @brief Device memory that Spindle does not own (a torch or cupy tensor, another CUDA
/// library's buffer) in and out of Vector / DenseMatrix without a host round trip.
///
/// ## Design
/// Spindle's containers own their device copies (spindle/cuda/residency.hpp), so foreign memory
/// is never adopted: it is copied device to device into a new container, whose newest copy is
/// then on the device (`Residency::Device`, no host array made, no upload counted). Lending a
/// container's device copy out is a read-only pointer with a lifetime rule; a caller that needs
/// memory it owns copies from it (the Python bindings hand a DLPack tensor a copy the tensor
/// owns, so later operations on the container cannot change the tensor).
///
/// Ordering: every Spindle operation runs on one CUDA stream, `engine_stream()`. A producer
/// must make its data ready on that stream before the copy is enqueued (a DLPack producer does
/// so when asked `__dlpack__(stream=engine_stream())`); the copy has finished when the call
/// returns, so the source may be freed or rewritten at once.
///
/// Builds without CUDA: `engine_stream()` is 0 and the copy functions throw Unsupported.

#include <cstdint>

#include "spindle/dense.hpp"
#include "spindle/vector.hpp"

namespace spindle {

/// The CUDA stream (a cudaStream_t as an integer) on which every Spindle operation, transfer
/// and allocation is ordered; creates the CUDA context on first use. Throws Unsupported when no
/// CUDA device is usable.
std::uintptr_t engine_stream();

namespace detail {
/// Makes `slot` a device copy of `n` elements of `elem` bytes copied from device memory at
/// `src`, newest on the device, every entry present. Checks that `src` is device (or managed)
/// memory of the current device. Blocks until the copy is done.
void mirror_copy_from_device(DeviceMirrorPtr& slot, std::int64_t n, std::size_t elem,
                             const void* src, const char* what);
/// The current device copy of a container (uploaded when stale, counted), after everything
/// enqueued on the engine stream has run. Throws Unsupported without CUDA.
const void* mirror_device_pointer(DeviceMirrorPtr& slot, const HostArrays& host);
}  // namespace detail

/// A full vector of `n` elements copied on the device from `src` (device memory of the current
/// CUDA device, ready on engine_stream()). The vector's newest copy is on the device; its host
/// array is made only when host code reads it. Throws InvalidArgument when `src` is not device
/// memory of the current device (host memory included), Unsupported without CUDA.
template <class T>
Vector<T> vector_from_device(const T* src, std::int64_t n) {
  Vector<T> v(n, T{});  // the host array stays unmade
  detail::mirror_copy_from_device(detail::ResidencyAccess::mirror(v), n, sizeof(T), src,
                                  "vector_from_device");
  return v;
}

/// A rows x cols row-major matrix copied on the device from `src` (as vector_from_device).
template <class T>
DenseMatrix<T> dense_from_device(const T* src, std::int64_t rows, std::int64_t cols) {
  DenseMatrix<T> m(rows, cols, T{});  // checks the sizes; the host array stays unmade
  detail::mirror_copy_from_device(detail::ResidencyAccess::mirror(m), rows * cols, sizeof(T), src,
                                  "dense_from_device");
  return m;
}

/// The device copy of a full vector's values, made current first (one counted upload when the
/// host copy is newer). Every operation enqueued before has finished when this returns. The
/// pointer is valid for reading until `v` is next written, resized, moved from or destroyed.
/// Throws InvalidArgument for a vector with absent entries, Unsupported without CUDA.
template <class T>
const T* device_pointer(const Vector<T>& v) {
  if (!v.is_full()) {
    throw InvalidArgument("device_pointer: the vector has " + std::to_string(v.size() - v.nvals()) +
                          " absent entries (only a full vector's values are lent)");
  }
  return static_cast<const T*>(detail::mirror_device_pointer(detail::ResidencyAccess::mirror(v),
                                                             detail::ResidencyAccess::host(v)));
}

/// The device copy of a dense matrix (row-major), as device_pointer(Vector).
template <class T>
const T* device_pointer(const DenseMatrix<T>& m) {
  return static_cast<const T*>(detail::mirror_device_pointer(detail::ResidencyAccess::mirror(m),
                                                             detail::ResidencyAccess::host(m)));
}

}  // namespace spindle
