// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file device_mirror.hpp
/// @brief The device side of Vector / DenseMatrix residency (spindle/cuda/residency.hpp): the
/// mirror object and the typed views the CUDA backend takes of containers and masks.
/// Internal to CUDA builds.

#include <atomic>
#include <cstdint>
#include <mutex>

#include "engine/src/cuda/device_buffer.hpp"
#include "spindle/cuda/device_views.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/dense.hpp"
#include "spindle/mask.hpp"
#include "spindle/vector.hpp"

namespace spindle::detail {

struct DeviceMirror {
  std::mutex mutex;  // guards transfers and buffer changes
  std::atomic<Residency> state{Residency::Host};
  cuda::DeviceBuffer values;    // n * elem bytes
  cuda::DeviceBuffer presence;  // n bytes; meaningful only when !device_full
  std::int64_t n = 0;
  std::size_t elem = 0;
  bool device_full = true;  // the device copy has every entry present
};

namespace cuda {

/// Counts a scalar read back to the host (reduce, l1_distance results).
void count_scalar_read() noexcept;
/// Counts a graph upload of `bytes`.
void count_graph_upload(std::uint64_t bytes) noexcept;
/// Whether debug::poison_device_outputs is on: scratch that a kernel must fill before reading
/// (the relabelled copy of u) is poisoned too, so a skipped fill shows as a wrong result.
bool poisoning_outputs() noexcept;

/// A container's device copy as an input: current after the call (uploaded if stale).
struct DeviceIn {
  const void* values = nullptr;
  const std::uint8_t* presence = nullptr;  ///< nullptr: every entry present
};
DeviceIn device_input(DeviceMirrorPtr& slot, const HostArrays& host);

/// A container's device copy as an output. With keep_old the old content is made current on the
/// device first (accumulators, masks without replace). A presence array is provided when
/// may_be_sparse or when the kept old content is not full: initialised to the old presence when
/// keep_old (all ones if it was full), otherwise left for the kernel to write completely.
struct DeviceOut {
  void* values = nullptr;
  std::uint8_t* presence = nullptr;  ///< nullptr: the kernel writes no presence
  bool old_full = true;              ///< the old content had every entry present
};
DeviceOut device_output(DeviceMirrorPtr& slot, const HostArrays& host, bool keep_old,
                        bool may_be_sparse);
/// Marks the device copy as the newest (after the kernels writing it were enqueued).
/// `full`: every entry is present (the presence array is not read any more).
void device_written(DeviceMirror& m, bool full) noexcept;

/// Typed views --------------------------------------------------------------------------------

template <class T>
struct VecIn {
  const T* values = nullptr;
  const std::uint8_t* presence = nullptr;  ///< nullptr: full
};
template <class T>
struct VecOut {
  T* values = nullptr;
  std::uint8_t* presence = nullptr;
  bool old_full = true;
  DeviceMirror* mirror = nullptr;
};

template <class T>
VecIn<T> device_in(const Vector<T>& v) {
  const DeviceIn d = device_input(ResidencyAccess::mirror(v), ResidencyAccess::host(v));
  return {static_cast<const T*>(d.values), d.presence};
}
template <class T>
VecOut<T> device_out(Vector<T>& w, bool keep_old, bool may_be_sparse) {
  DeviceMirrorPtr& slot = ResidencyAccess::mirror(w);
  const DeviceOut d = device_output(slot, ResidencyAccess::host(w), keep_old, may_be_sparse);
  return {static_cast<T*>(d.values), d.presence, d.old_full, slot.get()};
}
template <class T>
const T* device_in(const DenseMatrix<T>& a) {
  return static_cast<const T*>(
      device_input(ResidencyAccess::mirror(a), ResidencyAccess::host(a)).values);
}
template <class T>
T* device_out(DenseMatrix<T>& c, bool keep_old) {
  DeviceMirrorPtr& slot = ResidencyAccess::mirror(c);
  return static_cast<T*>(device_output(slot, ResidencyAccess::host(c), keep_old, false).values);
}
template <class T>
void mark_written(Vector<T>& w, bool full) {
  device_written(*ResidencyAccess::mirror(w), full);
}
template <class T>
void mark_written(DenseMatrix<T>& c) {
  device_written(*ResidencyAccess::mirror(c), true);
}

/// Uploads the mask's vector if its device copy is stale.
DeviceMask device_mask(const Mask& mask);

}  // namespace cuda
}  // namespace spindle::detail
