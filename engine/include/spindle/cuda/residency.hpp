// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file residency.hpp
/// @brief Where Vector / DenseMatrix data lives (host, device or both) and the transfer counters
/// that make "no silent round trips" checkable. Plain C++: no CUDA header is included here, so
/// every build (CUDA or not) sees the same types.
///
/// ## Design
/// A `Vector<T>` or `DenseMatrix<T>` owns its host arrays (a Vector built with a size and a fill
/// value makes its array only when the host first needs it: until then it is "n copies of the
/// fill", and a CUDA operation reading it fills the device copy on the device, which is not an
/// upload and moves nothing). CUDA operations attach an
/// optional *device mirror* (`detail::DeviceMirror`, defined in engine/src/cuda) holding a device
/// copy of the values (and of the presence bitmap for vectors) with a freshness state:
///
///   - `Residency::Host`:   host arrays are current, the device copy is absent or stale;
///   - `Residency::Both`:   both copies hold the same data;
///   - `Residency::Device`: a CUDA operation wrote the device copy; the host arrays are stale.
///
/// Transfers happen at exactly these points, each counted in `transfer_stats()`:
///   - a CUDA operation reads an input whose device copy is stale: one upload (host -> device),
///     except for a Vector whose host array was never made (filled on the device, not counted);
///   - host code reads a container whose state is `Device`: one download (device -> host),
///     lazily inside the accessor, or explicitly with `sync_to_host()`;
///   - a scalar result (reduce, l1_distance) is read back: counted as a scalar read.
/// CUDA operations keep their outputs on the device (state `Device`), so a chain of operations
/// (an algorithm's iteration) moves no vector between host and device. Tests check this by
/// resetting the counters, running the iterations and asserting zero vector downloads.
///
/// Host write access (non-const `operator[]`, `data()`, `values()`, `set`, ...) makes the device
/// copy stale (state `Host`); read through a const reference to avoid that. Copying a container
/// whose device copy is current copies the device copy on the device (no host traffic). In a
/// build without CUDA no mirror is ever created and every container stays in state `Host`.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace spindle {

/// Where a container's current data lives (see the file comment).
enum class Residency : std::uint8_t { Host, Both, Device };

/// Host <-> device traffic of containers since the last reset_transfer_stats() (process-wide).
struct TransferStats {
  std::uint64_t uploads = 0;  ///< container copies host -> device
  std::uint64_t upload_bytes = 0;
  std::uint64_t downloads = 0;  ///< container copies device -> host
  std::uint64_t download_bytes = 0;
  std::uint64_t scalar_reads = 0;   ///< scalar results read back (reduce, l1_distance)
  std::uint64_t graph_uploads = 0;  ///< graph structures / values uploaded (cached per graph)
  std::uint64_t graph_upload_bytes = 0;
};

/// The counters (all zero in builds without CUDA). Thread-safe.
TransferStats transfer_stats() noexcept;
/// Resets the counters to zero.
void reset_transfer_stats() noexcept;

namespace debug {
/// Test hook: while on, every device output that does not keep its old content is filled with
/// 0xFF bytes (NaN for floats) and its presence bytes with 0x5A before the kernel runs, so a
/// kernel that skips an entry shows up as a wrong value. No effect without CUDA.
void poison_device_outputs(bool on) noexcept;
}  // namespace debug

namespace detail {

/// Device copy of a container; defined in engine/src/cuda (stubbed in CPU builds).
struct DeviceMirror;
struct DeviceMirrorDeleter {
  void operator()(DeviceMirror* m) const noexcept;
};
using DeviceMirrorPtr = std::unique_ptr<DeviceMirror, DeviceMirrorDeleter>;

/// The host side of a container, as the mirror functions see it: `n` elements of `elem_bytes`
/// at `values`, and for vectors the presence bitmap (empty = every entry present; nullptr for
/// dense matrices, which have no presence). A vector whose host array is not made yet has
/// `values` null and `fill` pointing at the one value all n elements hold: an upload fills the
/// device copy on the device instead of copying.
struct HostArrays {
  void* values = nullptr;
  std::size_t elem_bytes = 0;
  std::int64_t n = 0;
  std::vector<std::uint8_t>* presence = nullptr;
  const void* fill = nullptr;
};

/// True when the device copy is newer than the host arrays. Thread-safe.
bool mirror_device_newer(const DeviceMirror& m) noexcept;
/// True when the device copy has every entry present (meaningful when it is current).
bool mirror_device_full(const DeviceMirror& m) noexcept;
/// Residency of a container that has mirror `m`.
Residency mirror_residency(const DeviceMirror& m) noexcept;
/// Downloads the device copy into `host` when it is newer (blocking, counted). Thread-safe and
/// idempotent: concurrent callers download once.
void mirror_sync_host(DeviceMirror& m, const HostArrays& host);
/// Called after host code was given write access: the device copy is stale from now on.
void mirror_host_written(DeviceMirror& m) noexcept;
/// A device-to-device copy of `m` when its device copy is current; nullptr otherwise.
DeviceMirror* mirror_clone(const DeviceMirror& m);

/// Downloads when needed; the inline fast path is a null test (always null without CUDA).
inline void sync_host_if_needed(const DeviceMirrorPtr& p, const HostArrays& host) {
  if (p && mirror_device_newer(*p)) mirror_sync_host(*p, host);
}

/// Friend of Vector, DenseMatrix and Mask through which the CUDA backend reaches their device
/// mirrors and host arrays without triggering a host sync. Internal.
struct ResidencyAccess {
  template <class C>
  static DeviceMirrorPtr& mirror(const C& c) noexcept {
    return c.dev_;
  }
  template <class C>
  static HostArrays host(const C& c) noexcept {
    return c.host_arrays_();
  }
  /// The vector behind a Mask (`mask_mirror` is null for Mask{}).
  template <class MaskT>
  static DeviceMirrorPtr* mask_mirror(const MaskT& m) noexcept {
    return m.mirror_;
  }
  template <class MaskT>
  static HostArrays mask_host(const MaskT& m) noexcept {
    return m.host_of_(m.source_);
  }
};

}  // namespace detail
}  // namespace spindle
