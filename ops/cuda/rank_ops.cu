// SPDX-License-Identifier: Apache-2.0
// CUDA backend: the fused random-walk steps (spindle/ops/rank.hpp). Each call is one
// element-wise kernel that also writes per-tile partial sums, and one single-block kernel that
// folds the partials in a fixed order (deterministic, no atomics). The leak stays on the device
// (a 1-element vector read by the next call's kernel); only the residual is read back. The fused
// steps (teleport_residual_and_scale; normalize_and_distance, two element-wise kernels and two
// finishes) have their finish kernels write their scalars straight into mapped pinned host
// memory, each with an event behind it that its PendingScalar waits on: nothing else waits and no
// copy sits between two kernels.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/core/rank_backend.hpp"
#include "ops/cuda/vector/reduce.cuh"
#include "spindle/ops/detail/checks.hpp"

namespace spindle::detail::cuda {
namespace {

/// One tile's sum: term(i) for the elements of tile blockIdx.x, thread-strided (coalesced), then
/// the block's fixed tree, written to part[blockIdx.x]. The order depends only on the constants
/// kReduceTile / kReduceThreads, never on the device. term may also write element i's outputs.
template <class T, class Term>
__device__ __forceinline__ void tile_sum(std::int64_t n, T* __restrict__ part, Term term) {
  const std::int64_t b0 = static_cast<std::int64_t>(blockIdx.x) * kReduceTile;
  const std::int64_t b1 = min(b0 + kReduceTile, n);
  T acc = T(0);
  for (std::int64_t i = b0 + threadIdx.x; i < b1; i += kReduceThreads) acc += term(i);
  const Partial<T> r = block_combine(MonoidKind::Plus, Partial<T>{acc, true});
  if (threadIdx.x == 0) part[blockIdx.x] = r.v;
}

/// The sum of part[0..tiles) for one block: contiguous runs per thread, then a fixed tree (the
/// result is in thread 0).
template <class T>
__device__ __forceinline__ T parts_sum(const T* __restrict__ part, std::int64_t tiles) {
  const std::int64_t per = (tiles + kReduceThreads - 1) / kReduceThreads;
  const std::int64_t i0 = threadIdx.x * per;
  const std::int64_t i1 = min(i0 + per, tiles);
  T acc = T(0);
  for (std::int64_t i = i0; i < i1; ++i) acc += part[i];
  return block_combine(MonoidKind::Plus, Partial<T>{acc, true}).v;
}

template <class T>
__device__ __forceinline__ T abs_diff(T a, T b) {
  return a < b ? b - a : a - b;
}

/// w = x .* s; the tile's sum of x where s is 0 -> part.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    scale_leak_kernel(std::int64_t n, const T* __restrict__ x, const T* __restrict__ s,
                      T* __restrict__ w, T* __restrict__ part) {
  tile_sum(n, part, [&](std::int64_t i) {
    const T xi = x[i];
    const T si = s[i];
    w[i] = xi * si;
    return si == T(0) ? xi : T(0);  // acc + 0 is acc: the bits of skipping the term
  });
}

/// y = (y if present, else 0) + c * (p or 1); the tile's sum of |y - x| -> part.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    teleport_residual_kernel(std::int64_t n, const T* __restrict__ x, T* __restrict__ y,
                             const std::uint8_t* __restrict__ y_present, const T* __restrict__ p,
                             const T* __restrict__ leak, double t0, double t1,
                             T* __restrict__ part) {
  const T c = static_cast<T>(t0 + t1 * static_cast<double>(*leak));
  tile_sum(n, part, [&](std::int64_t i) {
    const T yi = (y_present == nullptr || y_present[i] != 0) ? y[i] : T(0);
    const T v = yi + (p != nullptr ? c * p[i] : c);
    y[i] = v;
    return abs_diff(v, x[i]);
  });
}

/// teleport_residual_kernel and then scale_leak_kernel over its output, element by element: the
/// residual's partials go to part[0, tiles), the leak's to part[tiles, 2 tiles), each summed in
/// the order of the kernel it replaces (so the sums keep those kernels' bits). leak is read here
/// and rewritten by the finish kernel after it. On an H200 (4 M vertices, presence included) it
/// moves 55 MB from DRAM and 33 MB into L2 in 29 us; tiles of 2048 instead of kReduceTile's 8192
/// (4x the blocks) took 32 us.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    teleport_residual_scale_kernel(std::int64_t n, const T* __restrict__ x, T* __restrict__ y,
                                   const std::uint8_t* __restrict__ y_present,
                                   const T* __restrict__ p, const T* __restrict__ leak, double t0,
                                   double t1, const T* __restrict__ s, T* __restrict__ w,
                                   T* __restrict__ part) {
  // kBatch of a thread's elements are loaded before any is used; they are then added in the
  // thread's element order.
  constexpr int kBatch = 8;
  const T c = static_cast<T>(t0 + t1 * static_cast<double>(*leak));
  const std::int64_t b0 = static_cast<std::int64_t>(blockIdx.x) * kReduceTile;
  const std::int64_t b1 = min(b0 + kReduceTile, n);
  T res = T(0), lost = T(0);
  for (std::int64_t i0 = b0 + threadIdx.x; i0 < b1; i0 += kBatch * kReduceThreads) {
    T yv[kBatch], xv[kBatch], sv[kBatch], pv[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const std::int64_t i = i0 + std::int64_t{j} * kReduceThreads;
      if (i < b1) {
        yv[j] = (y_present == nullptr || y_present[i] != 0) ? y[i] : T(0);
        xv[j] = x[i];
        sv[j] = s[i];
        pv[j] = p != nullptr ? p[i] : T(1);
      }
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const std::int64_t i = i0 + std::int64_t{j} * kReduceThreads;
      if (i < b1) {
        const T v = yv[j] + (p != nullptr ? c * pv[j] : c);
        y[i] = v;
        res += abs_diff(v, xv[j]);
        w[i] = v * sv[j];
        if (sv[j] == T(0)) lost += v;
      }
    }
  }
  const Partial<T> r = block_combine(MonoidKind::Plus, Partial<T>{res, true});
  __syncthreads();  // every thread has read r out of the shared slots the next combine reuses
  const Partial<T> l = block_combine(MonoidKind::Plus, Partial<T>{lost, true});
  if (threadIdx.x == 0) {
    part[blockIdx.x] = r.v;
    part[gridDim.x + blockIdx.x] = l.v;
  }
}

/// The tile's sum of y(i)^2 -> part.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    sum_squares_kernel(std::int64_t n, const T* __restrict__ y, T* __restrict__ part) {
  tile_sum(n, part, [&](std::int64_t i) {
    const T yi = y[i];
    return yi * yi;
  });
}

/// y(i) = y(i) / *divisor; the tile's sum of |y(i) - x(i)| -> part.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    divide_distance_kernel(std::int64_t n, T* __restrict__ y, const T* __restrict__ x,
                           const T* __restrict__ divisor, T* __restrict__ part) {
  const T d = *divisor;
  tile_sum(n, part, [&](std::int64_t i) {
    const T v = y[i] / d;
    y[i] = v;
    return abs_diff(v, x[i]);
  });
}

/// *out = sum of part[0..tiles) (one block: contiguous runs per thread, then a fixed tree). With
/// two blocks, block 1 also sums part[tiles, 2 tiles) into *out1.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    sum_parts_kernel(const T* __restrict__ part, std::int64_t tiles, T* __restrict__ out,
                     T* __restrict__ out1 = nullptr) {
  if (blockIdx.x == 1) {
    part += tiles;
    out = out1;
  }
  const T sum = parts_sum(part, tiles);
  if (threadIdx.x == 0) *out = sum;
}

/// The L2 norm from the squares' partials: *norm = sqrt(sum), *divisor = the norm, or 1 when it
/// is 0 (networkx's `or 1`: a vanished iterate stays as it is).
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    norm_finish_kernel(const T* __restrict__ part, std::int64_t tiles, T* __restrict__ norm,
                       T* __restrict__ divisor) {
  const T sum = parts_sum(part, tiles);
  if (threadIdx.x == 0) {
    const T v = sqrt(sum);
    *norm = v;
    *divisor = v == T(0) ? T(1) : v;
  }
}

std::int64_t tiles_of(std::int64_t n) { return (n + kReduceTile - 1) / kReduceTile; }

/// Pinned host slots, each with an event, for scalars a kernel writes straight to the host: the
/// slots are mapped, so no copy sits on the stream between that kernel and the next one (a device
/// that cannot map host memory gets a device-side slot and a 16-byte copy instead). Slots come in
/// pages of kSlotsPerPage (one pinned allocation, since pinning costs far more than a slot) and go
/// back to the free list when their PendingScalar is done with them. release_device_resources()
/// frees the pages and events once every slot is back; a pool with a slot still out keeps them.
class ReadbackSlots {
 public:
  struct Slot {
    void* host = nullptr;    // kSlotBytes of pinned host memory
    void* device = nullptr;  // what the kernel writes: the same bytes mapped, or device memory
    cudaEvent_t done = nullptr;
    bool copy = false;  // device is not host: copy it to host before the event
  };
  static constexpr std::size_t kSlotBytes = 16;  // a double, aligned
  static constexpr int kSlotsPerPage = 64;

  static ReadbackSlots& get() {
    static auto* pool = [] {  // immortal, like the context
      auto* p = new ReadbackSlots();
      on_release(&ReadbackSlots::release);  // here, not under mutex_: release() takes it
      return p;
    }();
    return *pool;
  }
  Slot take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) grow();
    const Slot s = free_.back();
    free_.pop_back();
    return s;
  }
  /// Never allocates (grow() reserved room for every slot): it runs inside destructors.
  void give_back(const Slot& s) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(s);
  }
  /// The on_release hook: frees everything when no slot is out.
  static void release() noexcept {
    ReadbackSlots& p = get();
    std::lock_guard<std::mutex> lock(p.mutex_);
    if (p.free_.size() != p.total_) return;
    for (const Slot& s : p.free_) cudaEventDestroy(s.done);
    for (const Page& pg : p.pages_) {
      cudaFreeHost(pg.host);
      if (pg.device_owned) cudaFree(pg.device);
    }
    std::vector<Slot>().swap(p.free_);
    std::vector<Page>().swap(p.pages_);
    p.total_ = 0;
    cudaGetLastError();
  }

 private:
  struct Page {
    void* host = nullptr;
    void* device = nullptr;
    bool device_owned = false;
  };
  void grow() {
    // Pinned host memory, through the allocation hook like every engine allocation.
    check_allocation(kSlotBytes * kSlotsPerPage, "readback slots", MemorySpace::Host);
    free_.reserve(total_ + kSlotsPerPage);
    pages_.reserve(pages_.size() + 1);
    int dev = 0, can_map = 0;
    SPINDLE_CUDA_CHECK(cudaGetDevice(&dev));
    SPINDLE_CUDA_CHECK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, dev));
    const std::size_t bytes = kSlotBytes * kSlotsPerPage;
    Page pg;
    std::vector<cudaEvent_t> events;
    events.reserve(kSlotsPerPage);
    SPINDLE_CUDA_CHECK(
        cudaHostAlloc(&pg.host, bytes, can_map ? cudaHostAllocMapped : cudaHostAllocDefault));
    try {
      if (can_map != 0) {
        SPINDLE_CUDA_CHECK(cudaHostGetDevicePointer(&pg.device, pg.host, 0));
      } else {
        SPINDLE_CUDA_CHECK(cudaMalloc(&pg.device, bytes));
        pg.device_owned = true;
      }
      for (int i = 0; i < kSlotsPerPage; ++i) {
        cudaEvent_t e = nullptr;
        SPINDLE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        events.push_back(e);
      }
    } catch (...) {
      for (cudaEvent_t e : events) cudaEventDestroy(e);
      if (pg.device_owned) cudaFree(pg.device);
      cudaFreeHost(pg.host);
      throw;
    }
    for (int i = 0; i < kSlotsPerPage; ++i) {
      Slot s;
      s.host = static_cast<char*>(pg.host) + kSlotBytes * i;
      s.device = static_cast<char*>(pg.device) + kSlotBytes * i;
      s.done = events[static_cast<std::size_t>(i)];
      s.copy = pg.device_owned;
      free_.push_back(s);
    }
    pages_.push_back(pg);
    total_ += kSlotsPerPage;
  }
  std::mutex mutex_;
  std::vector<Slot> free_;
  std::vector<Page> pages_;
  std::size_t total_ = 0;
};

/// A slot for one T that a kernel fills on a stream, and the PendingScalar that waits for it: the
/// slot's event is recorded right after that kernel and get() waits on that event only. The slot
/// goes back to the pool when the last copy of the waiting function is destroyed, read or not
/// (after the event, as the kernel may still be queued).
///
/// Two phases, so that a step allocates everything before its first kernel writes an output: the
/// constructor takes the slot and builds the waiting function (the allocations: a new pool page,
/// the holder), and finish() after the kernel only records the event. A step that throws between
/// the two (a launch error) leaves the slot to the destructor, which waits for the stream first:
/// a kernel already queued may still write the slot.
template <class T>
class ScalarReadback {
 public:
  explicit ScalarReadback(cudaStream_t stream) : stream_(stream) {
    static_assert(sizeof(T) <= ReadbackSlots::kSlotBytes);
    auto* slot = new ReadbackSlots::Slot();
    try {
      *slot = ReadbackSlots::get().take();
    } catch (...) {
      delete slot;
      throw;
    }
    // On a failed control-block allocation shared_ptr calls the deleter: the slot goes back.
    holder_ = std::shared_ptr<ReadbackSlots::Slot>(slot, [](ReadbackSlots::Slot* s) {
      cudaEventSynchronize(s->done);
      ReadbackSlots::get().give_back(*s);
      delete s;
    });
    pending_ = PendingScalar<T>(std::function<T()>([holder = holder_]() {
      SPINDLE_CUDA_CHECK(cudaEventSynchronize(holder->done));
      return *static_cast<const volatile T*>(holder->host);
    }));
  }
  ScalarReadback(const ScalarReadback&) = delete;
  ScalarReadback& operator=(const ScalarReadback&) = delete;
  ~ScalarReadback() {
    if (!finished_) {
      cudaStreamSynchronize(stream_);  // see the class comment
      cudaGetLastError();
    }
  }

  /// Where the kernel writes the scalar.
  T* slot() const noexcept { return static_cast<T*>(holder_->device); }

  /// After the kernel writing slot() was queued on the stream: the scalar, pending.
  PendingScalar<T> finish() {
    if (holder_->copy) {
      SPINDLE_CUDA_CHECK(cudaMemcpyAsync(holder_->host, holder_->device, sizeof(T),
                                         cudaMemcpyDeviceToHost, stream_));
    }
    SPINDLE_CUDA_CHECK(cudaEventRecord(holder_->done, stream_));
    finished_ = true;
    count_scalar_read();
    // A fault in the kernels of a scalar dropped unread surfaces at the next checked call, not
    // here: the deleter runs in destructors and only waits before the slot is reused.
    return std::move(pending_);
  }

 private:
  cudaStream_t stream_;
  std::shared_ptr<ReadbackSlots::Slot> holder_;
  PendingScalar<T> pending_;
  bool finished_ = false;
};

// An output the step writes completely (every entry present): in place when it has n entries, else
// a fresh full vector (host array deferred) moved in by commit() once every allocation of the step
// has succeeded, so that a failed one leaves the output as it was.
template <class T>
OutputStage<Vector<T>> stage_full(Vector<T>& v, std::int64_t n) {
  return stage_shape(v, v.size() == n, [n] { return Vector<T>(n); });
}

}  // namespace

template <class T>
void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = x.size();
  OutputStage<Vector<T>> w_out = stage_full(w, n), leak_out = stage_full(leak, 1);
  const VecIn<T> dx = device_in(x), ds = device_in(scale);
  const VecOut<T> dw = device_out(w_out.get(), false, false);
  const VecOut<T> dl = device_out(leak_out.get(), false, false);
  const std::int64_t tiles = tiles_of(n);
  T* part =
      static_cast<T*>(ctx.scratch(static_cast<std::size_t>(tiles > 0 ? tiles : 1) * sizeof(T)));
  if (tiles > 0) {
    scale_leak_kernel<T><<<static_cast<unsigned>(tiles), kReduceThreads, 0, ctx.stream>>>(
        n, dx.values, ds.values, dw.values, part);
    SPINDLE_CUDA_CHECK_LAUNCH("scale_leak_kernel");
  }
  sum_parts_kernel<T><<<1, kReduceThreads, 0, ctx.stream>>>(part, tiles, dl.values);
  SPINDLE_CUDA_CHECK_LAUNCH("sum_parts_kernel");
  mark_written(w_out.get(), true);
  mark_written(leak_out.get(), true);
  w_out.commit();
  leak_out.commit();
}

template <class T>
T teleport_and_residual(Vector<T>& x_new, const Vector<T>& x, const Vector<T>& leak, double t0,
                        double t1, const Vector<T>* teleport) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = x.size();
  const VecIn<T> dx = device_in(x), dl = device_in(leak);
  const T* dp = teleport != nullptr ? device_in(*teleport).values : nullptr;
  // Keep the old content (x_new holds A^T w); its presence comes along when it is not full.
  const VecOut<T> dy = device_out(x_new, true, false);
  const std::uint8_t* y_present = dy.old_full ? nullptr : dy.presence;
  const std::int64_t tiles = tiles_of(n);
  auto* part = static_cast<T*>(
      ctx.scratch(static_cast<std::size_t>(std::max<std::int64_t>(tiles, 1)) * sizeof(T)));
  ScalarReadback<T> rb(ctx.stream);  // allocates: before the kernel writes x_new
  if (tiles > 0) {
    teleport_residual_kernel<T><<<static_cast<unsigned>(tiles), kReduceThreads, 0, ctx.stream>>>(
        n, dx.values, dy.values, y_present, dp, dl.values, t0, t1, part);
    SPINDLE_CUDA_CHECK_LAUNCH("teleport_residual_kernel");
  }
  sum_parts_kernel<T><<<1, kReduceThreads, 0, ctx.stream>>>(part, tiles, rb.slot());
  SPINDLE_CUDA_CHECK_LAUNCH("sum_parts_kernel");
  mark_written(x_new, true);
  return rb.finish().get();  // this call's contract: the residual now
}

template <class T>
PendingScalar<T> teleport_residual_and_scale(Vector<T>& x_new, const Vector<T>& x, Vector<T>& leak,
                                             double t0, double t1, const Vector<T>* teleport,
                                             Vector<T>& w, const Vector<T>& scale) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = x.size();
  OutputStage<Vector<T>> w_out = stage_full(w, n);
  const VecIn<T> dx = device_in(x), ds = device_in(scale);
  const T* dp = teleport != nullptr ? device_in(*teleport).values : nullptr;
  // Keep x_new's content (it holds A^T w) and its presence when it is not full; leak is read by
  // the element-wise kernel and rewritten by the finish kernel after it.
  const VecOut<T> dy = device_out(x_new, true, false);
  const std::uint8_t* y_present = dy.old_full ? nullptr : dy.presence;
  const VecOut<T> dl = device_out(leak, true, false);
  const VecOut<T> dw = device_out(w_out.get(), false, false);
  const std::int64_t tiles = tiles_of(n);
  auto* part = static_cast<T*>(
      ctx.scratch(static_cast<std::size_t>(std::max<std::int64_t>(2 * tiles, 1)) * sizeof(T)));
  ScalarReadback<T> rb(ctx.stream);  // allocates: before the kernels write the outputs
  if (tiles > 0) {
    teleport_residual_scale_kernel<T>
        <<<static_cast<unsigned>(tiles), kReduceThreads, 0, ctx.stream>>>(
            n, dx.values, dy.values, y_present, dp, dl.values, t0, t1, ds.values, dw.values, part);
    SPINDLE_CUDA_CHECK_LAUNCH("teleport_residual_scale_kernel");
  }
  // The finish kernel writes the leak to its vector and the residual into a mapped host slot.
  sum_parts_kernel<T><<<2, kReduceThreads, 0, ctx.stream>>>(part, tiles, rb.slot(), dl.values);
  SPINDLE_CUDA_CHECK_LAUNCH("sum_parts_kernel");
  PendingScalar<T> residual = rb.finish();  // may throw: before the outputs are published
  mark_written(x_new, true);
  mark_written(w_out.get(), true);
  mark_written(leak, true);
  w_out.commit();
  return residual;
}

template <class T>
NormalizedStep<T> normalize_and_distance(Vector<T>& y, const Vector<T>& x) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = y.size();
  const VecIn<T> dx = device_in(x);
  const VecOut<T> dy = device_out(y, true, false);
  const std::int64_t tiles = tiles_of(n);
  // part[0, tiles): one pass's partials (the second pass reuses them), part[tiles]: the divisor.
  auto* part = static_cast<T*>(ctx.scratch(static_cast<std::size_t>(tiles + 1) * sizeof(T)));
  T* divisor = part + tiles;
  const auto blocks = static_cast<unsigned>(tiles);
  // Both slots before the first kernel: the second pass divides y in place.
  ScalarReadback<T> norm(ctx.stream), change(ctx.stream);
  NormalizedStep<T> out;
  if (tiles > 0) {
    sum_squares_kernel<T><<<blocks, kReduceThreads, 0, ctx.stream>>>(n, dy.values, part);
    SPINDLE_CUDA_CHECK_LAUNCH("sum_squares_kernel");
  }
  norm_finish_kernel<T><<<1, kReduceThreads, 0, ctx.stream>>>(part, tiles, norm.slot(), divisor);
  SPINDLE_CUDA_CHECK_LAUNCH("norm_finish_kernel");
  out.norm = norm.finish();
  if (tiles > 0) {
    divide_distance_kernel<T>
        <<<blocks, kReduceThreads, 0, ctx.stream>>>(n, dy.values, dx.values, divisor, part);
    SPINDLE_CUDA_CHECK_LAUNCH("divide_distance_kernel");
  }
  sum_parts_kernel<T><<<1, kReduceThreads, 0, ctx.stream>>>(part, tiles, change.slot());
  SPINDLE_CUDA_CHECK_LAUNCH("sum_parts_kernel");
  out.change = change.finish();
  mark_written(y, true);
  return out;
}

SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_BACKEND)
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_STEP_BACKEND)

}  // namespace spindle::detail::cuda
