// SPDX-License-Identifier: Apache-2.0
// Built when CUDA is off: containers never get a device mirror, so these are only linked, and
// the transfer counters stay zero.
#include "spindle/cuda/residency.hpp"
#include "spindle/error.hpp"

namespace spindle {

TransferStats transfer_stats() noexcept { return {}; }
void reset_transfer_stats() noexcept {}
namespace debug {
void poison_device_outputs(bool) noexcept {}
}  // namespace debug

namespace detail {

struct DeviceMirror {};

void DeviceMirrorDeleter::operator()(DeviceMirror* m) const noexcept { delete m; }
bool mirror_device_newer(const DeviceMirror&) noexcept { return false; }
bool mirror_device_full(const DeviceMirror&) noexcept { return true; }
Residency mirror_residency(const DeviceMirror&) noexcept { return Residency::Host; }
void mirror_sync_host(DeviceMirror&, const HostArrays&) {}
void mirror_host_written(DeviceMirror&) noexcept {}
DeviceMirror* mirror_clone(const DeviceMirror&) { return nullptr; }

}  // namespace detail
}  // namespace spindle
