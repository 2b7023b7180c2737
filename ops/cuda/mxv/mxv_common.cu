// SPDX-License-Identifier: Apache-2.0
// Small non-templated pieces of the CUDA mxv: presence after cuSPARSE, fallback logging.
#include <atomic>

#include "ops/cuda/mxv/mxv_entry.cuh"

namespace spindle::detail::cuda {
namespace {

template <class I>
__global__ void row_presence_kernel(const I* row_ptr, std::int64_t rows, std::uint8_t* present) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows) present[i] = row_ptr[i + 1] > row_ptr[i] ? 1 : 0;
}

}  // namespace

template <class I>
void launch_row_presence(const I* row_ptr, std::int64_t rows, std::uint8_t* present,
                         cudaStream_t stream) {
  const std::int64_t blocks = (rows + 255) / 256;
  row_presence_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(row_ptr, rows, present);
  SPINDLE_CUDA_CHECK_LAUNCH("row_presence_kernel");
}

template void launch_row_presence<std::int32_t>(const std::int32_t*, std::int64_t, std::uint8_t*,
                                                cudaStream_t);
template void launch_row_presence<std::int64_t>(const std::int64_t*, std::int64_t, std::uint8_t*,
                                                cudaStream_t);

namespace {
std::atomic<bool> g_skip_fixup{false};
}  // namespace

void debug_skip_carry_fixup(bool on) noexcept { g_skip_fixup.store(on); }
bool carry_fixup_skipped() noexcept { return g_skip_fixup.load(std::memory_order_relaxed); }

void log_mxv_fallback(const Plan& plan, MxvKernel instead, const std::string& why) {
  if (!plan_logging_enabled()) return;
  Plan p = plan;
  p.reason = std::string(to_string(plan.mxv)) + " declined (" + why + "); ran " +
             to_string(instead) + " instead";
  p.mxv = instead;
  log_plan(p);
}

}  // namespace spindle::detail::cuda
