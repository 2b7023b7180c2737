// SPDX-License-Identifier: Apache-2.0
// Device mirrors of vectors and dense matrices: uploads, lazy downloads, device-side copies and
// the transfer counters (spindle/cuda/residency.hpp has the design).
#include "engine/src/cuda/device_mirror.hpp"

#include <algorithm>
#include <cstring>

#include "engine/src/cuda/fill.hpp"
#include "engine/src/cuda/transfer.hpp"
#include "engine/src/cuda_unavailable.hpp"
#include "spindle/cuda/external.hpp"
#include "spindle/executor.hpp"

namespace spindle {
namespace {

struct Counters {
  std::atomic<std::uint64_t> uploads{0}, upload_bytes{0}, downloads{0}, download_bytes{0},
      scalar_reads{0}, graph_uploads{0}, graph_upload_bytes{0};
};
Counters& counters() {
  static Counters c;
  return c;
}

std::atomic<bool> g_poison{false};

}  // namespace

TransferStats transfer_stats() noexcept {
  const Counters& c = counters();
  TransferStats s;
  s.uploads = c.uploads.load();
  s.upload_bytes = c.upload_bytes.load();
  s.downloads = c.downloads.load();
  s.download_bytes = c.download_bytes.load();
  s.scalar_reads = c.scalar_reads.load();
  s.graph_uploads = c.graph_uploads.load();
  s.graph_upload_bytes = c.graph_upload_bytes.load();
  return s;
}

namespace debug {
void poison_device_outputs(bool on) noexcept { g_poison.store(on); }
}  // namespace debug

std::uintptr_t engine_stream() {
  if (!cuda_available()) throw Unsupported("engine_stream: " + detail::cuda_unavailable_message());
  return reinterpret_cast<std::uintptr_t>(detail::cuda::context().stream);
}

void reset_transfer_stats() noexcept {
  Counters& c = counters();
  for (auto* a : {&c.uploads, &c.upload_bytes, &c.downloads, &c.download_bytes, &c.scalar_reads,
                  &c.graph_uploads, &c.graph_upload_bytes}) {
    a->store(0);
  }
}

namespace detail {

void DeviceMirrorDeleter::operator()(DeviceMirror* m) const noexcept { delete m; }

bool mirror_device_newer(const DeviceMirror& m) noexcept {
  return m.state.load(std::memory_order_acquire) == Residency::Device;
}

bool mirror_device_full(const DeviceMirror& m) noexcept {
  std::lock_guard<std::mutex> lock(const_cast<DeviceMirror&>(m).mutex);
  return m.device_full;
}

Residency mirror_residency(const DeviceMirror& m) noexcept {
  return m.state.load(std::memory_order_acquire);
}

void mirror_sync_host(DeviceMirror& m, const HostArrays& host) {
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.state.load(std::memory_order_acquire) != Residency::Device) return;
  cuda::Context& ctx = cuda::context();
  const std::size_t bytes = static_cast<std::size_t>(m.n) * m.elem;
  if (bytes > 0) {
    // The containers make a deferred host array before they sync (Vector::sync_).
    if (host.values == nullptr) {
      throw Error("internal error: download into a host array that was not made");
    }
    cuda::copy_to_host(host.values, m.values.get(), bytes, ctx.stream);
  }
  std::uint64_t moved = bytes;
  if (host.presence != nullptr) {
    if (m.device_full) {
      host.presence->clear();
    } else {
      host.presence->resize(static_cast<std::size_t>(m.n));
      if (m.n > 0) {
        cuda::copy_to_host(host.presence->data(), m.presence.get(), static_cast<std::size_t>(m.n),
                           ctx.stream);
      }
      moved += static_cast<std::uint64_t>(m.n);
    }
  }
  ctx.synchronize();
  // The same canonical form as the CPU backend: a bitmap with every entry present is dropped.
  if (host.presence != nullptr && !host.presence->empty() &&
      std::all_of(host.presence->begin(), host.presence->end(),
                  [](std::uint8_t p) { return p != 0; })) {
    host.presence->clear();
  }
  counters().downloads.fetch_add(1);
  counters().download_bytes.fetch_add(moved);
  m.state.store(Residency::Both, std::memory_order_release);
}

void mirror_host_written(DeviceMirror& m) noexcept {
  m.state.store(Residency::Host, std::memory_order_release);
}

DeviceMirror* mirror_clone(const DeviceMirror& src) {
  auto& m = const_cast<DeviceMirror&>(src);
  std::lock_guard<std::mutex> lock(m.mutex);
  const Residency st = m.state.load(std::memory_order_acquire);
  if (st == Residency::Host) return nullptr;
  cuda::Context& ctx = cuda::context();
  auto copy = std::make_unique<DeviceMirror>();
  copy->n = m.n;
  copy->elem = m.elem;
  copy->device_full = m.device_full;
  const std::size_t bytes = static_cast<std::size_t>(m.n) * m.elem;
  copy->values = cuda::DeviceBuffer(bytes, "device copy of a vector");
  if (bytes > 0) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(copy->values.get(), m.values.get(), bytes,
                                       cudaMemcpyDeviceToDevice, ctx.stream));
  }
  if (!m.device_full && m.n > 0) {
    copy->presence = cuda::DeviceBuffer(static_cast<std::size_t>(m.n), "device copy of a bitmap");
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(copy->presence.get(), m.presence.get(),
                                       static_cast<std::size_t>(m.n), cudaMemcpyDeviceToDevice,
                                       ctx.stream));
  }
  copy->state.store(st);
  return copy.release();
}

namespace cuda {

void count_scalar_read() noexcept { counters().scalar_reads.fetch_add(1); }

bool poisoning_outputs() noexcept { return g_poison.load(std::memory_order_relaxed); }

void count_graph_upload(std::uint64_t bytes) noexcept {
  counters().graph_uploads.fetch_add(1);
  counters().graph_upload_bytes.fetch_add(bytes);
}

namespace {

DeviceMirror& mirror_for(DeviceMirrorPtr& slot) {
  if (!slot) slot.reset(new DeviceMirror());
  return *slot;
}

// (Re)allocates the device buffers for the host's current shape; the old device content is
// lost when the shape changed (the host is then the newest copy anyway).
void shape(DeviceMirror& m, const HostArrays& host) {
  if (m.n == host.n && m.elem == host.elem_bytes && m.values.get() != nullptr) return;
  if (m.n == host.n && m.elem == host.elem_bytes && host.n == 0) return;
  // Checked: a deferred container of any size reaches here without a host array behind it.
  const std::uint64_t bytes =
      checked_mul(static_cast<std::uint64_t>(host.n), static_cast<std::uint64_t>(host.elem_bytes),
                  "device copy size");
  m.values = DeviceBuffer(static_cast<std::size_t>(bytes), "device copy");
  m.presence = DeviceBuffer();
  m.n = host.n;
  m.elem = host.elem_bytes;
  m.device_full = true;
}

void ensure_presence(DeviceMirror& m) {
  if (m.presence.get() == nullptr && m.n > 0) {
    m.presence = DeviceBuffer(static_cast<std::size_t>(m.n), "device presence bitmap");
  }
}

// Host -> device when the device copy is stale (caller holds m.mutex).
void upload_locked(DeviceMirror& m, const HostArrays& host) {
  if (m.state.load(std::memory_order_acquire) != Residency::Host && m.n == host.n &&
      m.elem == host.elem_bytes) {
    return;
  }
  shape(m, host);
  Context& ctx = context();
  const std::size_t bytes = static_cast<std::size_t>(host.n) * host.elem_bytes;
  std::uint64_t moved = 0;
  const bool device_fill = host.values == nullptr && host.fill != nullptr;
  if (device_fill) {
    // No host array yet, only a fill value: fill on the device, nothing crosses the bus.
    fill_elements(m.values.get(), host.n, host.elem_bytes, host.fill, ctx.stream);
  } else if (bytes > 0) {
    cuda::copy_to_device(m.values.get(), host.values, bytes, ctx.stream);
    moved = bytes;
  }
  const bool full = host.presence == nullptr || host.presence->empty();
  if (!full) {
    ensure_presence(m);
    cuda::copy_to_device(m.presence.get(), host.presence->data(), static_cast<std::size_t>(host.n),
                         ctx.stream);
    moved += static_cast<std::uint64_t>(host.n);
  }
  m.device_full = full;
  // Copies from pageable host memory return once the data is staged, so the host arrays may be
  // changed right after this. A device fill with no bitmap moved nothing and is not counted.
  if (!device_fill || moved > 0) {
    counters().uploads.fetch_add(1);
    counters().upload_bytes.fetch_add(moved);
  }
  m.state.store(Residency::Both, std::memory_order_release);
}

}  // namespace

DeviceIn device_input(DeviceMirrorPtr& slot, const HostArrays& host) {
  DeviceMirror& m = mirror_for(slot);
  std::lock_guard<std::mutex> lock(m.mutex);
  upload_locked(m, host);
  DeviceIn in;
  in.values = m.values.get();
  in.presence = m.device_full ? nullptr : m.presence.as<const std::uint8_t>();
  return in;
}

DeviceOut device_output(DeviceMirrorPtr& slot, const HostArrays& host, bool keep_old,
                        bool may_be_sparse) {
  DeviceMirror& m = mirror_for(slot);
  std::lock_guard<std::mutex> lock(m.mutex);
  if (keep_old) {
    upload_locked(m, host);
  } else {
    shape(m, host);
  }
  DeviceOut out;
  out.old_full = keep_old ? m.device_full : true;
  out.values = m.values.get();
  const bool want_presence = may_be_sparse || !out.old_full;
  if (want_presence) ensure_presence(m);  // allocated before the poison below writes anything
  const bool poison = !keep_old && g_poison.load() && m.n > 0;
  if (poison) {
    SPINDLE_CUDA_CHECK(cudaMemsetAsync(m.values.get(), 0xFF, static_cast<std::size_t>(m.n) * m.elem,
                                       context().stream));
  }
  if (want_presence) {
    if (keep_old && m.device_full && m.n > 0) {
      SPINDLE_CUDA_CHECK(
          cudaMemsetAsync(m.presence.get(), 1, static_cast<std::size_t>(m.n), context().stream));
    } else if (poison) {
      SPINDLE_CUDA_CHECK(
          cudaMemsetAsync(m.presence.get(), 0x5A, static_cast<std::size_t>(m.n), context().stream));
    }
    out.presence = m.presence.as<std::uint8_t>();
  }
  return out;
}

void device_written(DeviceMirror& m, bool full) noexcept {
  std::lock_guard<std::mutex> lock(m.mutex);
  m.device_full = full;
  m.state.store(Residency::Device, std::memory_order_release);
}

}  // namespace cuda

void mirror_copy_from_device(DeviceMirrorPtr& slot, std::int64_t n, std::size_t elem,
                             const void* src, const char* what) {
  cuda::Context& ctx = cuda::context();
  const std::uint64_t bytes =
      checked_mul(static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(elem), what);
  if (bytes > 0) {
    // Refuse what a device-to-device copy would fault on or silently misread: host memory,
    // another GPU's memory, a pointer CUDA has never seen.
    cudaPointerAttributes attr{};
    const cudaError_t rc = cudaPointerGetAttributes(&attr, src);
    if (rc != cudaSuccess) {
      (void)cudaGetLastError();  // not sticky: clear it
      throw InvalidArgument(std::string(what) + ": the source is not CUDA memory (" +
                            cudaGetErrorString(rc) + ")");
    }
    int current = 0;
    SPINDLE_CUDA_CHECK(cudaGetDevice(&current));
    if (attr.type != cudaMemoryTypeDevice && attr.type != cudaMemoryTypeManaged) {
      throw InvalidArgument(std::string(what) +
                            ": the source is host memory; build the container from a host "
                            "array instead");
    }
    if (attr.device != current) {
      throw InvalidArgument(std::string(what) + ": the source is on CUDA device " +
                            std::to_string(attr.device) + ", Spindle runs on device " +
                            std::to_string(current));
    }
  }
  DeviceMirror& m = cuda::mirror_for(slot);
  std::lock_guard<std::mutex> lock(m.mutex);
  HostArrays shape_of;
  shape_of.n = n;
  shape_of.elem_bytes = elem;
  cuda::shape(m, shape_of);
  if (bytes > 0) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(m.values.get(), src, static_cast<std::size_t>(bytes),
                                       cudaMemcpyDeviceToDevice, ctx.stream));
  }
  // The source may be freed or reused by its owner as soon as we return.
  ctx.synchronize();
  m.device_full = true;
  m.state.store(Residency::Device, std::memory_order_release);
}

const void* mirror_device_pointer(DeviceMirrorPtr& slot, const HostArrays& host) {
  const cuda::DeviceIn in = cuda::device_input(slot, host);
  cuda::context().synchronize();
  return in.values;
}

namespace cuda {

DeviceMask device_mask(const Mask& mask) {
  DeviceMask d;
  if (mask.empty()) {
    d.none = true;
    d.complement = mask.complemented();
    return d;
  }
  d.none = false;
  d.structural = mask.kind() == MaskKind::Structural;
  d.complement = mask.complemented();
  d.elem = mask.elem();
  DeviceMirrorPtr* slot = ResidencyAccess::mask_mirror(mask);
  const DeviceIn in = device_input(*slot, ResidencyAccess::mask_host(mask));
  d.values = in.values;
  d.presence = in.presence;
  return d;
}

}  // namespace cuda
}  // namespace detail
}  // namespace spindle
