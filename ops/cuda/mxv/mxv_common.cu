// SPDX-License-Identifier: Apache-2.0
// Small non-templated pieces of the CUDA mxv: the gather of u, fallback logging, the debug switch.
#include <atomic>

#include "ops/cuda/mxv/mxv_entry.cuh"

namespace spindle::detail::cuda {
namespace {
std::atomic<bool> g_skip_fixup{false};

template <class T, class I>
__global__ void gather_kernel(const T* x, const I* perm, std::int64_t n, T* out) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[perm[i]];
}
}  // namespace

void debug_skip_carry_fixup(bool on) noexcept { g_skip_fixup.store(on); }
bool carry_fixup_skipped() noexcept { return g_skip_fixup.load(std::memory_order_relaxed); }

template <class T, class I>
void launch_gather(const T* x, const I* perm, std::int64_t n, T* out, cudaStream_t stream) {
  if (n == 0) return;
  gather_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, perm, n, out);
  SPINDLE_CUDA_CHECK_LAUNCH("gather_kernel");
}
template void launch_gather<float, std::int32_t>(const float*, const std::int32_t*, std::int64_t,
                                                 float*, cudaStream_t);
template void launch_gather<float, std::int64_t>(const float*, const std::int64_t*, std::int64_t,
                                                 float*, cudaStream_t);
template void launch_gather<double, std::int32_t>(const double*, const std::int32_t*, std::int64_t,
                                                  double*, cudaStream_t);
template void launch_gather<double, std::int64_t>(const double*, const std::int64_t*, std::int64_t,
                                                  double*, cudaStream_t);
// u's presence bytes, for relabelled columns on the general path.
template void launch_gather<std::uint8_t, std::int32_t>(const std::uint8_t*, const std::int32_t*,
                                                        std::int64_t, std::uint8_t*, cudaStream_t);
template void launch_gather<std::uint8_t, std::int64_t>(const std::uint8_t*, const std::int64_t*,
                                                        std::int64_t, std::uint8_t*, cudaStream_t);

void throw_incomplete_mxv_plan(const Plan& plan) {
  throw InvalidArgument("CUDA mxv: the plan '" + plan.describe() +
                        "' is not one the planner makes (plans come complete from "
                        "plan_mxv_cuda / finalize_mxv_cuda)");
}

}  // namespace spindle::detail::cuda
