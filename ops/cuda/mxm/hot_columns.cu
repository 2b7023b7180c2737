// SPDX-License-Identifier: Apache-2.0
// The hot copy of B for the group form: flagged column ids, the copy and its persisting L2
// window (hot_columns.hpp).
#include "ops/cuda/mxm/hot_columns.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "ops/cuda/common/column_degrees.cuh"
#include "ops/cuda/mxm/persisting_limit.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"
#include "spindle/plan.hpp"

namespace spindle::detail::cuda {
namespace {

std::atomic<std::int64_t> g_hint_budget{0};
std::atomic<bool> g_force_copy{false};
std::atomic<bool> g_no_room{false};

/// slot_of[order[s]] = s for s < hot (slot_of starts as -1 everywhere).
template <class I>
__global__ void hot_slot_scatter_kernel(const I* __restrict__ order, std::int64_t hot,
                                        I* __restrict__ slot_of) {
  const std::int64_t s = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s < hot) slot_of[order[s]] = static_cast<I>(s);
}

/// out[k] = (slot, or col[k] itself in place) | top bit when col[k] is hot, else col[k].
template <class I>
__global__ void hot_flag_kernel(const I* __restrict__ col, std::int64_t nnz,
                                const I* __restrict__ slot_of, bool in_place, I* __restrict__ out) {
  using U = std::make_unsigned_t<I>;
  constexpr U kTop = U{1} << (sizeof(I) * 8 - 1);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const I j = col[k];
    const I s = slot_of[j];
    out[k] = s >= 0 ? static_cast<I>(static_cast<U>(in_place ? j : s) | kTop) : j;
  }
}

template <class T, class I>
__global__ void hot_copy_kernel(const I* __restrict__ order, std::int64_t hot,
                                const T* __restrict__ b, std::int64_t ldb, std::int64_t n,
                                std::int64_t width, std::int64_t total, T* __restrict__ hot_b) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += stride) {
    const std::int64_t q = i % width;
    const std::int64_t rest = i / width;
    const std::int64_t s = rest % hot;
    const std::int64_t col = (rest / hot) * width + q;
    hot_b[i] = col < n ? b[static_cast<std::int64_t>(order[s]) * ldb + col] : T(0);
  }
}

/// Reads one word of every 32-byte sector of [p, p + bytes) (volatile: the loads stay), so that
/// the lines take the access property of the stream's current window.
__global__ void l2_touch_kernel(const char* __restrict__ p, std::int64_t sectors) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < sectors; i += stride) {
    asm volatile("{\n\t.reg .u32 t;\n\tld.global.cg.u32 t, [%0];\n\t}" ::"l"(p + i * 32));
  }
}

}  // namespace

void debug_spmm_gather_hints(std::int64_t budget) noexcept { g_hint_budget.store(budget); }
std::int64_t spmm_gather_hints_override() noexcept { return g_hint_budget.load(); }
void debug_spmm_hot_copy(bool on) noexcept { g_force_copy.store(on); }
void debug_spmm_hot_columns_no_room(bool on) noexcept { g_no_room.store(on); }

std::atomic<std::int64_t>& spmm_hinted_launch_count() noexcept {
  static std::atomic<std::int64_t> n{0};
  return n;
}
std::int64_t debug_spmm_hinted_launches() noexcept { return spmm_hinted_launch_count().load(); }

namespace {
std::atomic<std::int64_t> g_hot_copies{0};
}  // namespace
std::int64_t debug_spmm_hot_copies() noexcept { return g_hot_copies.load(); }

SpmmHotRule spmm_hot_rule(std::int64_t cols, std::int64_t row_bytes, std::int64_t copy_row_bytes,
                          std::int64_t passes) {
  // Narrowest pass that gets hints by rule: 256 bytes (N = 64 floats); at N = 32 they lost
  // (H100; docs/design/mxm.md).
  constexpr std::int64_t kSpmmHintMinRowBytes = 256;
  // The hot set in place: the columns whose B rows fill this share of L2 keep the normal policy,
  // the rest are read evict-first. Run 13 (H100, 50 MB L2) found about 32 MB best at N = 64 and
  // 128 on R-MAT 22.
  constexpr double kSpmmHotL2Share = 0.6;
  constexpr bool kSpmmHintsByRule = false;
  static const std::int64_t set_aside = [] {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxPersistingL2CacheSize, dev) != cudaSuccess) {
      cudaGetLastError();
      return std::int64_t{0};
    }
    return static_cast<std::int64_t>(v);
  }();
  const std::int64_t forced = g_hint_budget.load();
  SpmmHotRule r;
  if (forced < 0 || row_bytes <= 0 || copy_row_bytes <= 0 || passes <= 0) return r;
  if (forced == 0) {
    // By rule: none. Once the set-aside the copy raises was put back after each call (run 22),
    // the hints lost on every graph and width measured, the copy and the in-place form alike
    // (H200, spindle bench mxm, docs/design/mxm.md; R-MAT 22 N = 128: off 5.579 ms, in place at
    // 16 / 24 / 32 / 48 MB 5.858 / 5.742 / 5.826 / 7.097, the copy at 24 MB 5.990; N = 64 2.848
    // against 3.259-3.420; R-MAT 20 N = 128 1.205 against 1.359-1.440; uniform 22 N = 128 8.777
    // against 8.886-9.262). The conditions below are where they had been measured to pay on an
    // H100 (run 13, evict-first for cold rows; run 20's copy gains were taken against plain runs
    // slowed by the set-aside the copy left raised), kept for a device where they pay again.
    const std::int64_t l2 = device_caps().l2_bytes > 0 ? device_caps().l2_bytes : 50ll << 20;
    if (!kSpmmHintsByRule || passes != 1 || row_bytes < kSpmmHintMinRowBytes ||
        static_cast<double>(cols) * static_cast<double>(row_bytes) <= static_cast<double>(l2)) {
      return r;
    }
    r.rows = static_cast<std::int64_t>(kSpmmHotL2Share * static_cast<double>(l2)) / row_bytes;
    return r;
  }
  // The tests' and benchmarks' budget: in place where one pass covers N, unless the copy is asked
  // for (debug_spmm_hot_copy); several passes can only read a copy (the kernel's slab offset).
  r.copy = passes > 1 || g_force_copy.load();
  r.rows = r.copy ? std::min(forced, set_aside) / copy_row_bytes : forced / row_bytes;
  return r;
}

namespace {

/// Fewest entries (as a share of nnz) the hot columns must hold for the copy: R-MAT 22's 64 K
/// hottest columns hold 63% of its entries, while a uniform graph's in-degrees
/// (16 +- 4 on uniform 22) leave any hot set a few percent.
constexpr double kSpmmHotMinShare = 0.25;

template <class I>
void fill_hot_columns(HotColumnsSlot& slot, const I* col_idx, std::int64_t nnz, std::int64_t cols,
                      std::int64_t hot, bool in_place, cudaStream_t stream) {
  using U = ColumnDegree<I>;
  if (g_no_room.load()) {
    throw OutOfMemory("spmm hot columns: no room (test hook debug_spmm_hot_columns_no_room)");
  }
  hot = std::min(hot, cols);
  if (nnz == 0 || hot <= 0) return;  // slot.hot stays 0: no copy
  const std::size_t n_bytes = static_cast<std::size_t>(cols) * sizeof(U);
  DeviceBuffer deg(n_bytes, "spmm hot columns"), sorted(n_bytes, "spmm hot columns");
  DeviceBuffer ids(static_cast<std::size_t>(cols) * sizeof(I), "spmm hot columns");
  sort_column_degrees<I>(col_idx, nnz, cols, deg.as<U>(), sorted.as<U>(), ids.as<I>(),
                         "spmm hot columns", stream);
  // Columns of in-degree 0 sort last: the hot count is the number of nonzero degrees among the
  // first `hot` (read back once, at most budget / 128 bytes of degrees).
  std::vector<U> top(static_cast<std::size_t>(hot));
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(top.data(), sorted.get(), top.size() * sizeof(U),
                                     cudaMemcpyDeviceToHost, stream));
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  slot.hot = std::count_if(top.begin(), top.end(), [](U d) { return d > 0; });
  // Skew: a copy whose columns hold few of the entries only takes L2 from the rest (uniform 22,
  // in-degrees 16 +- 4: with the copy at 24 MB 16.19 against 14.23 ms off at N = 128, run 20).
  // The tests' hook budget skips the check, so that small test graphs get a copy.
  const double share =
      static_cast<double>(std::accumulate(top.begin(), top.end(), std::uint64_t{0})) /
      static_cast<double>(nnz);
  if (g_hint_budget.load() <= 0 && share < kSpmmHotMinShare) slot.hot = 0;
  if (slot.hot == 0) return;
  slot.col = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(I), "spmm hot columns");
  slot.order = DeviceBuffer(static_cast<std::size_t>(slot.hot) * sizeof(I), "spmm hot columns");
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(slot.order.get(), ids.get(),
                                     static_cast<std::size_t>(slot.hot) * sizeof(I),
                                     cudaMemcpyDeviceToDevice, stream));
  DeviceBuffer slot_of(static_cast<std::size_t>(cols) * sizeof(I), "spmm hot columns");
  SPINDLE_CUDA_CHECK(
      cudaMemsetAsync(slot_of.get(), 0xff, static_cast<std::size_t>(cols) * sizeof(I), stream));
  hot_slot_scatter_kernel<I><<<static_cast<unsigned>((slot.hot + 255) / 256), 256, 0, stream>>>(
      slot.order.as<const I>(), slot.hot, slot_of.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("hot_slot_scatter_kernel");
  hot_flag_kernel<I><<<grid_stride_blocks(nnz), 256, 0, stream>>>(
      col_idx, nnz, slot_of.as<const I>(), in_place, slot.col.as<I>());
  SPINDLE_CUDA_CHECK_LAUNCH("hot_flag_kernel");
}  // the scratch buffers are freed stream-ordered, after the kernels

}  // namespace

template <class I>
std::unique_ptr<HotColumnsSlot> build_hot_columns(const I* col_idx, std::int64_t nnz,
                                                  std::int64_t cols, std::int64_t hot,
                                                  bool in_place, cudaStream_t stream) {
  auto s = std::make_unique<HotColumnsSlot>();
  s->in_place = in_place;
  try {
    fill_hot_columns<I>(*s, col_idx, nnz, cols, hot, in_place, stream);
  } catch (const OutOfMemory& e) {
    // Buffers already made are freed stream-ordered, after the kernels that use them.
    s->col = DeviceBuffer();
    s->order = DeviceBuffer();
    s->hot = 0;
    s->no_room = true;
    if (plan_logging_enabled()) {
      std::fprintf(stderr,
                   "[spindle plan] mxm: nnz_balanced_seq runs without the hot copy of B (no room "
                   "for the flagged column ids: %s)\n",
                   e.what());
    }
  }
  return s;
}

template <class T, class I>
void launch_hot_copy(const I* order, std::int64_t hot, const T* b, std::int64_t ldb, std::int64_t n,
                     std::int64_t width, std::int64_t passes, T* hot_b, cudaStream_t stream) {
  const std::int64_t total = passes * hot * width;
  if (total <= 0) return;
  g_hot_copies.fetch_add(1, std::memory_order_relaxed);
  hot_copy_kernel<T, I>
      <<<grid_stride_blocks(total), 256, 0, stream>>>(order, hot, b, ldb, n, width, total, hot_b);
  SPINDLE_CUDA_CHECK_LAUNCH("hot_copy_kernel");
}

namespace {

/// An access-policy window over [base, base + bytes) whose every access (hit ratio 1) gets `hit`.
cudaStreamAttrValue window_attr(const void* base, std::size_t bytes, cudaAccessProperty hit) {
  cudaStreamAttrValue attr{};
  attr.accessPolicyWindow.base_ptr = const_cast<void*>(base);
  attr.accessPolicyWindow.num_bytes = bytes;
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = hit;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  return attr;
}

}  // namespace

namespace {

/// The device's persisting L2 set-aside while windows are open. A raised limit must not outlive
/// them: with 39 MB of the H200's 60 MB set aside (and no persisting line left in it), streaming
/// kernels run far slower (the split-TF32 GEMM of GCN's 4.2 M x 128 x 128 product: 5.13 ms
/// against 1.33 ms with the limit back at 0; cublasSgemm 5.94 against 3.67 ms;
/// docs/design/gemm.md). So the first window to raise it records the value before, and the last
/// one to close puts it back, after its stream's work (the set-aside is device-wide and not
/// stream-ordered: lowering it under a running SpMM would take its hot copy's lines away).
struct PersistingLimit {
  std::mutex mutex;
  int open = 0;            // windows holding the raised limit
  bool raised = false;     // the limit is above `before` because of them
  std::size_t before = 0;  // the limit before the first of them raised it

  /// With the mutex held: puts the limit back once no window is open (`stream`: the closing
  /// window's, waited for first; nullptr where nothing was enqueued).
  void release(cudaStream_t stream) noexcept {
    if (open > 0 || !raised) return;
    raised = false;
    cudaError_t e = stream != nullptr ? cudaStreamSynchronize(stream) : cudaSuccess;
    if (e == cudaSuccess) e = cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before);
    if (e != cudaSuccess) {
      cudaGetLastError();
      if (plan_logging_enabled()) {
        std::fprintf(stderr,
                     "[spindle plan] mxm: restoring the persisting L2 limit after the hot copy "
                     "failed: %s\n",
                     cudaGetErrorString(e));
      }
    }
  }
};
PersistingLimit g_limit;

}  // namespace

std::int64_t debug_persisting_l2_limit() noexcept {
  std::size_t limit = 0;
  if (!device_caps().available ||
      cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return static_cast<std::int64_t>(limit);
}

PersistingWindow::PersistingWindow(PersistingWindow&& o) noexcept
    : base_(o.base_), bytes_(o.bytes_), stream_(o.stream_), saved_(o.saved_) {
  o.base_ = nullptr;
}

PersistingWindow& PersistingWindow::operator=(PersistingWindow&& o) noexcept {
  if (this != &o) {
    close();
    base_ = o.base_;
    bytes_ = o.bytes_;
    stream_ = o.stream_;
    saved_ = o.saved_;
    o.base_ = nullptr;
  }
  return *this;
}

void PersistingWindow::open(const void* base, std::size_t bytes, cudaStream_t stream) noexcept {
  close();
  if (base == nullptr || bytes == 0) return;
  // Any failure leaves the stream as it was: the copy is read without the window (slower, same
  // results), so it is logged, not thrown.
  auto failed = [](cudaError_t e) {
    if (e == cudaSuccess) return false;
    cudaGetLastError();
    if (plan_logging_enabled()) {
      std::fprintf(stderr, "[spindle plan] mxm: the hot copy runs without its L2 window (%s)\n",
                   cudaGetErrorString(e));
    }
    return true;
  };
  {
    const std::lock_guard<std::mutex> lock(g_limit.mutex);
    std::size_t limit = 0;
    if (failed(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize))) return;
    if (limit < bytes) {
      if (!g_limit.raised) g_limit.before = limit;  // the first raise since the last restore
      if (failed(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes))) return;
      g_limit.raised = true;
      if (failed(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize))) {
        g_limit.release(nullptr);
        return;
      }
    }
    bytes = std::min(bytes, limit);
    ++g_limit.open;  // released by close(), or below where the window cannot be set
  }
  auto give_up = [&] {
    const std::lock_guard<std::mutex> lock(g_limit.mutex);
    --g_limit.open;
    g_limit.release(nullptr);
  };
  // The device's largest window, queried once (the engine runs on one device); the limit above
  // stays per call, since other code may change it.
  struct MaxWindow {
    int bytes = 0;
    cudaError_t error = cudaSuccess;
  };
  static const MaxWindow max_window = [] {
    MaxWindow w;
    int dev = 0;
    w.error = cudaGetDevice(&dev);
    if (w.error == cudaSuccess) {
      w.error = cudaDeviceGetAttribute(&w.bytes, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    }
    if (w.error != cudaSuccess) cudaGetLastError();
    return w;
  }();
  if (failed(max_window.error)) return give_up();
  bytes = std::min(bytes, static_cast<std::size_t>(std::max(max_window.bytes, 0)));
  if (bytes == 0) return give_up();
  if (failed(cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &saved_))) {
    return give_up();
  }
  const cudaStreamAttrValue attr = window_attr(base, bytes, cudaAccessPropertyPersisting);
  if (failed(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr))) {
    return give_up();
  }
  base_ = base;
  bytes_ = bytes;
  stream_ = stream;
}

void PersistingWindow::close() noexcept {
  if (base_ == nullptr) return;
  const cudaStreamAttrValue attr = window_attr(base_, bytes_, cudaAccessPropertyNormal);
  cudaError_t e = cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &attr);
  if (e == cudaSuccess) {
    const auto sectors = static_cast<std::int64_t>((bytes_ + 31) / 32);  // bytes_: 16-byte units
    l2_touch_kernel<<<grid_stride_blocks(sectors), 256, 0, stream_>>>(
        static_cast<const char*>(base_), sectors);
    e = cudaGetLastError();
  }
  const cudaError_t r =
      cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &saved_);
  if (e == cudaSuccess) e = r;
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (plan_logging_enabled()) {
      std::fprintf(stderr, "[spindle plan] mxm: closing the hot copy's L2 window failed: %s\n",
                   cudaGetErrorString(e));
    }
  }
  {
    const std::lock_guard<std::mutex> lock(g_limit.mutex);
    --g_limit.open;
    g_limit.release(stream_);
  }
  base_ = nullptr;
}

template <class I>
std::vector<std::int64_t> debug_spmm_hot_slots(const std::vector<I>& col_idx, std::int64_t cols,
                                               std::int64_t hot) {
  const cudaStream_t stream = context().stream;
  const DeviceBuffer d = upload_async(col_idx, "spmm hot columns test", stream);
  const auto slot = build_hot_columns<I>(d.as<const I>(), static_cast<std::int64_t>(col_idx.size()),
                                         cols, hot, false, stream);
  std::vector<std::int64_t> out(col_idx.size(), -1);
  if (slot->hot == 0) return out;
  // Read on the stream the build ran on (the context's stream does not wait for cudaMemcpy's).
  std::vector<I> flagged(col_idx.size()), order(static_cast<std::size_t>(slot->hot));
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(flagged.data(), slot->col.get(), flagged.size() * sizeof(I),
                                     cudaMemcpyDeviceToHost, stream));
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(order.data(), slot->order.get(), order.size() * sizeof(I),
                                     cudaMemcpyDeviceToHost, stream));
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t k = 0; k < flagged.size(); ++k) {
    if (!spmm_hot_flagged(flagged[k])) {
      if (flagged[k] != col_idx[k]) {
        throw DeviceError("spmm hot columns: entry " + std::to_string(k) + " lost its column id",
                          0);
      }
      continue;
    }
    const std::int64_t s = spmm_hot_strip(flagged[k]);
    if (s >= slot->hot || order[static_cast<std::size_t>(s)] != col_idx[k]) {
      throw DeviceError("spmm hot columns: entry " + std::to_string(k) + " has a wrong slot", 0);
    }
    out[k] = s;
  }
  // The in-place ids for the same hot count flag the same entries, each keeping its column id.
  const auto in_place = build_hot_columns<I>(
      d.as<const I>(), static_cast<std::int64_t>(col_idx.size()), cols, hot, true, stream);
  if (in_place->hot != slot->hot) {
    throw DeviceError("spmm hot columns: the in-place ids have " + std::to_string(in_place->hot) +
                          " hot columns, the copy's " + std::to_string(slot->hot),
                      0);
  }
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(flagged.data(), in_place->col.get(),
                                     flagged.size() * sizeof(I), cudaMemcpyDeviceToHost, stream));
  SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t k = 0; k < flagged.size(); ++k) {
    if (spmm_hot_flagged(flagged[k]) != (out[k] >= 0) || spmm_hot_strip(flagged[k]) != col_idx[k]) {
      throw DeviceError("spmm hot columns: in-place entry " + std::to_string(k) + " is wrong", 0);
    }
  }
  return out;
}
template std::vector<std::int64_t> debug_spmm_hot_slots<std::int32_t>(
    const std::vector<std::int32_t>&, std::int64_t, std::int64_t);
template std::vector<std::int64_t> debug_spmm_hot_slots<std::int64_t>(
    const std::vector<std::int64_t>&, std::int64_t, std::int64_t);

#define SPINDLE_HOT_INST(I)                                                                     \
  template std::unique_ptr<HotColumnsSlot> build_hot_columns<I>(                                \
      const I*, std::int64_t, std::int64_t, std::int64_t, bool, cudaStream_t);                  \
  template void launch_hot_copy<float, I>(const I*, std::int64_t, const float*, std::int64_t,   \
                                          std::int64_t, std::int64_t, std::int64_t, float*,     \
                                          cudaStream_t);                                        \
  template void launch_hot_copy<double, I>(const I*, std::int64_t, const double*, std::int64_t, \
                                           std::int64_t, std::int64_t, std::int64_t, double*,   \
                                           cudaStream_t);
SPINDLE_HOT_INST(std::int32_t)
SPINDLE_HOT_INST(std::int64_t)
#undef SPINDLE_HOT_INST

}  // namespace spindle::detail::cuda
