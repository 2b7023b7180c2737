// SPDX-License-Identifier: Apache-2.0
// CUDA backend: the fused random-walk steps (spindle/ops/rank.hpp). Each call is one
// element-wise kernel that also writes per-tile partial sums, and one single-block kernel that
// folds the partials in a fixed order (deterministic, no atomics). The leak stays on the device
// (a 1-element vector read by the next call's kernel); only the residual is read back.
#include <cstdint>
#include <mutex>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/cuda/vector/reduce.cuh"

namespace spindle::detail::cuda {
namespace {

/// Elements of tile blockIdx.x, thread-strided (coalesced); the order depends only on the
/// constants kReduceTile / kReduceThreads, never on the device.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    scale_leak_kernel(std::int64_t n, const T* __restrict__ x, const T* __restrict__ s,
                      T* __restrict__ w, T* __restrict__ part) {
  const std::int64_t t0 = static_cast<std::int64_t>(blockIdx.x) * kReduceTile;
  const std::int64_t t1 = min(t0 + kReduceTile, n);
  T acc = T(0);
  for (std::int64_t i = t0 + threadIdx.x; i < t1; i += kReduceThreads) {
    const T xi = x[i];
    const T si = s[i];
    w[i] = xi * si;
    if (si == T(0)) acc += xi;
  }
  const Partial<T> r = block_combine(MonoidKind::Plus, Partial<T>{acc, true});
  if (threadIdx.x == 0) part[blockIdx.x] = r.v;
}

template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    teleport_residual_kernel(std::int64_t n, const T* __restrict__ x, T* __restrict__ y,
                             const std::uint8_t* __restrict__ y_present, const T* __restrict__ p,
                             const T* __restrict__ leak, double t0, double t1,
                             T* __restrict__ part) {
  const T c = static_cast<T>(t0 + t1 * static_cast<double>(*leak));
  const std::int64_t b0 = static_cast<std::int64_t>(blockIdx.x) * kReduceTile;
  const std::int64_t b1 = min(b0 + kReduceTile, n);
  T acc = T(0);
  for (std::int64_t i = b0 + threadIdx.x; i < b1; i += kReduceThreads) {
    const T yi = (y_present == nullptr || y_present[i] != 0) ? y[i] : T(0);
    const T v = yi + (p != nullptr ? c * p[i] : c);
    y[i] = v;
    const T xi = x[i];
    acc += v < xi ? xi - v : v - xi;
  }
  const Partial<T> r = block_combine(MonoidKind::Plus, Partial<T>{acc, true});
  if (threadIdx.x == 0) part[blockIdx.x] = r.v;
}

/// out[0] = sum of part[0..tiles) (one block: contiguous runs per thread, then a fixed tree).
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    sum_parts_kernel(const T* __restrict__ part, std::int64_t tiles, T* __restrict__ out) {
  const std::int64_t per = (tiles + kReduceThreads - 1) / kReduceThreads;
  const std::int64_t i0 = threadIdx.x * per;
  const std::int64_t i1 = min(i0 + per, tiles);
  T acc = T(0);
  for (std::int64_t i = i0; i < i1; ++i) acc += part[i];
  const Partial<T> r = block_combine(MonoidKind::Plus, Partial<T>{acc, true});
  if (threadIdx.x == 0) *out = r.v;
}

std::int64_t tiles_of(std::int64_t n) { return (n + kReduceTile - 1) / kReduceTile; }

}  // namespace

template <class T>
void scale_and_leak(Vector<T>& w, Vector<T>& leak, const Vector<T>& x, const Vector<T>& scale) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = x.size();
  if (w.size() != n) w = Vector<T>(n);
  if (leak.size() != 1) leak = Vector<T>(1);
  const VecIn<T> dx = device_in(x), ds = device_in(scale);
  const VecOut<T> dw = device_out(w, false, false);
  const VecOut<T> dl = device_out(leak, false, false);
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
  mark_written(w, true);
  mark_written(leak, true);
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
  auto* ws = static_cast<T*>(ctx.scratch(static_cast<std::size_t>(tiles + 1) * sizeof(T)));
  T* out = ws + tiles;
  if (tiles > 0) {
    teleport_residual_kernel<T><<<static_cast<unsigned>(tiles), kReduceThreads, 0, ctx.stream>>>(
        n, dx.values, dy.values, y_present, dp, dl.values, t0, t1, ws);
    SPINDLE_CUDA_CHECK_LAUNCH("teleport_residual_kernel");
  }
  sum_parts_kernel<T><<<1, kReduceThreads, 0, ctx.stream>>>(ws, tiles, out);
  SPINDLE_CUDA_CHECK_LAUNCH("sum_parts_kernel");
  mark_written(x_new, true);
  T result{};
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(&result, out, sizeof(T), cudaMemcpyDeviceToHost, ctx.stream));
  ctx.synchronize();
  count_scalar_read();
  return result;
}

SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_INSTANTIATE_RANK_BACKEND)

}  // namespace spindle::detail::cuda
