// SPDX-License-Identifier: Apache-2.0
// Built when CUDA is off: containers never get a device mirror, so these are only linked, and
// the transfer counters stay zero.
#include <string>

#include "spindle/cuda/external.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/error.hpp"

namespace spindle {

TransferStats transfer_stats() noexcept { return {}; }
void reset_transfer_stats() noexcept {}
namespace debug {
void poison_device_outputs(bool) noexcept {}
}  // namespace debug

std::uintptr_t engine_stream() {
  throw Unsupported("engine_stream: this build of spindle has no CUDA");
}

namespace detail {

struct DeviceMirror {};

void DeviceMirrorDeleter::operator()(DeviceMirror* m) const noexcept { delete m; }
bool mirror_device_newer(const DeviceMirror&) noexcept { return false; }
bool mirror_device_full(const DeviceMirror&) noexcept { return true; }
Residency mirror_residency(const DeviceMirror&) noexcept { return Residency::Host; }
void mirror_sync_host(DeviceMirror&, const HostArrays&) {}
void mirror_host_written(DeviceMirror&) noexcept {}
DeviceMirror* mirror_clone(const DeviceMirror&) { return nullptr; }
void mirror_copy_from_device(DeviceMirrorPtr&, std::int64_t, std::size_t, const void*,
                             const char* what) {
  throw Unsupported(std::string(what) + ": this build of spindle has no CUDA");
}
const void* mirror_device_pointer(DeviceMirrorPtr&, const HostArrays&) {
  throw Unsupported("device_pointer: this build of spindle has no CUDA");
}

}  // namespace detail
}  // namespace spindle
