// SPDX-License-Identifier: Apache-2.0
// The hotness classes of a graph's columns for the group form's L2 hints (hot_columns.hpp).
#include "ops/cuda/mxm/hot_columns.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "ops/cuda/common/column_degrees.cuh"
#include "spindle/error.hpp"
#include "spindle/plan.hpp"

namespace spindle::detail::cuda {
namespace {

std::atomic<std::int64_t> g_hint_budget{0};
std::atomic<bool> g_no_room{false};

/// out[k] = col[k] with class (deg > t1) + (deg > t2) + (deg > t3) in its top two bits. t1 <= t2
/// <= t3, so the classes nest; a threshold of -1 (fewer columns than the class holds) takes all.
template <class I, class U>
__global__ void hot_flag_kernel(const I* __restrict__ col, std::int64_t nnz,
                                const U* __restrict__ deg, std::int64_t t1, std::int64_t t2,
                                std::int64_t t3, I* __restrict__ out) {
  using UI = std::make_unsigned_t<I>;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const I j = col[k];
    const auto d = static_cast<std::int64_t>(deg[j]);
    const UI cls = static_cast<UI>((d > t1) + (d > t2) + (d > t3));
    out[k] = static_cast<I>(static_cast<UI>(j) | (cls << (sizeof(I) * 8 - 2)));
  }
}

}  // namespace

void debug_spmm_gather_hints(std::int64_t budget) noexcept {
  g_hint_budget.store(budget > 0 ? budget : 0);
}
std::int64_t spmm_gather_hints_override() noexcept { return g_hint_budget.load(); }
void debug_spmm_hot_columns_no_room(bool on) noexcept { g_no_room.store(on); }

std::atomic<std::int64_t>& spmm_hinted_launch_count() noexcept {
  static std::atomic<std::int64_t> n{0};
  return n;
}
std::int64_t debug_spmm_hinted_launches() noexcept { return spmm_hinted_launch_count().load(); }

namespace {

template <class I>
void fill_hot_columns(HotColumnsSlot& slot, const I* col_idx, std::int64_t nnz, std::int64_t cols,
                      std::int64_t budget, cudaStream_t stream) {
  using U = ColumnDegree<I>;
  if (g_no_room.load()) {
    throw OutOfMemory("spmm hot columns: no room (test hook debug_spmm_hot_columns_no_room)");
  }
  HotColumnsSlot* s = &slot;
  s->col = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(nnz, 1)) * sizeof(I),
                        "spmm hot columns");
  if (nnz == 0 || cols == 0) return;
  const std::size_t n_bytes = static_cast<std::size_t>(cols) * sizeof(U);
  DeviceBuffer deg(n_bytes, "spmm hot columns"), sorted(n_bytes, "spmm hot columns");
  sort_column_degrees<I>(col_idx, nnz, cols, deg.as<U>(), sorted.as<U>(), nullptr,
                         "spmm hot columns", stream);
  // The thresholds of classes 1, 2, 3: the (K_c + 1)-th largest in-degree, read in one sync.
  U v[3] = {0, 0, 0};
  bool read = false;
  for (int c = 1; c <= 3; ++c) {
    const std::int64_t k = spmm_hot_count(budget, c);
    if (k < cols) {
      SPINDLE_CUDA_CHECK(cudaMemcpyAsync(&v[c - 1], sorted.as<U>() + k, sizeof(U),
                                         cudaMemcpyDeviceToHost, stream));
      read = true;
    }
  }
  if (read) SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::int64_t t[3] = {-1, -1, -1};  // -1: fewer columns than the class holds, all in it
  for (int c = 1; c <= 3; ++c) {
    if (spmm_hot_count(budget, c) < cols) t[c - 1] = static_cast<std::int64_t>(v[c - 1]);
  }
  hot_flag_kernel<I, U><<<grid_stride_blocks(nnz), 256, 0, stream>>>(
      col_idx, nnz, deg.as<const U>(), t[0], t[1], t[2], s->col.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("hot_flag_kernel");
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));  // deg and sorted die here
}

}  // namespace

template <class I>
std::unique_ptr<HotColumnsSlot> build_hot_columns(const I* col_idx, std::int64_t nnz,
                                                  std::int64_t cols, std::int64_t budget,
                                                  cudaStream_t stream) {
  auto s = std::make_unique<HotColumnsSlot>();
  try {
    fill_hot_columns<I>(*s, col_idx, nnz, cols, budget, stream);
  } catch (const OutOfMemory& e) {
    // Buffers already made are freed stream-ordered, after the kernels that use them.
    s->col = DeviceBuffer();
    s->no_room = true;
    if (plan_logging_enabled()) {
      std::fprintf(stderr,
                   "[spindle plan] mxm: nnz_balanced_seq runs without L2 hints for B (no room for "
                   "the flagged column ids: %s)\n",
                   e.what());
    }
  }
  return s;
}

template <class I>
std::vector<int> debug_spmm_hot_classes(const std::vector<I>& col_idx, std::int64_t cols,
                                        std::int64_t budget) {
  const cudaStream_t stream = context().stream;
  const DeviceBuffer d = upload_async(col_idx, "spmm hot columns test", stream);
  const auto slot = build_hot_columns<I>(d.as<const I>(), static_cast<std::int64_t>(col_idx.size()),
                                         cols, budget, stream);
  std::vector<I> flagged(col_idx.size());
  if (!flagged.empty()) {
    SPINDLE_CUDA_CHECK(cudaMemcpy(flagged.data(), slot->col.get(), flagged.size() * sizeof(I),
                                  cudaMemcpyDeviceToHost));
  }
  std::vector<int> cls(flagged.size());
  for (std::size_t k = 0; k < flagged.size(); ++k) {
    if (spmm_hot_strip(flagged[k]) != col_idx[k]) {
      throw DeviceError("spmm hot columns: entry " + std::to_string(k) + " lost its column id", 0);
    }
    cls[k] = spmm_hot_class(flagged[k]);
  }
  return cls;
}
template std::vector<int> debug_spmm_hot_classes<std::int32_t>(const std::vector<std::int32_t>&,
                                                               std::int64_t, std::int64_t);
template std::vector<int> debug_spmm_hot_classes<std::int64_t>(const std::vector<std::int64_t>&,
                                                               std::int64_t, std::int64_t);

template std::unique_ptr<HotColumnsSlot> build_hot_columns<std::int32_t>(const std::int32_t*,
                                                                         std::int64_t, std::int64_t,
                                                                         std::int64_t,
                                                                         cudaStream_t);
template std::unique_ptr<HotColumnsSlot> build_hot_columns<std::int64_t>(const std::int64_t*,
                                                                         std::int64_t, std::int64_t,
                                                                         std::int64_t,
                                                                         cudaStream_t);

}  // namespace spindle::detail::cuda
