// SPDX-License-Identifier: Apache-2.0
// CUDA backend: deterministic scalar reductions (one scalar read back per call, counted) and
// row reductions (results stay on the device).
#include <mutex>

#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "ops/cuda/vector/reduce.cuh"
#include "spindle/cuda/kernels/output.cuh"
#include "spindle/ops/cpu/functors.hpp"

namespace spindle::detail::cuda {
namespace {

template <class T>
T reduce_on_device(const ReduceInput<T>& in, T identity) {
  Context& ctx = context();
  const std::int64_t tiles = (in.n + kReduceTile - 1) / kReduceTile;
  // Workspace: tile values, the result, tile flags.
  const std::size_t vbytes = static_cast<std::size_t>(tiles + 1) * sizeof(T);
  auto* ws = static_cast<unsigned char*>(ctx.scratch(vbytes + static_cast<std::size_t>(tiles)));
  T* part_v = reinterpret_cast<T*>(ws);
  T* out = part_v + tiles;
  std::uint8_t* part_h = ws + vbytes;
  reduce_tiles_kernel<<<static_cast<unsigned>(tiles), kReduceThreads, 0, ctx.stream>>>(in, part_v,
                                                                                       part_h);
  SPINDLE_CUDA_CHECK_LAUNCH("reduce_tiles_kernel");
  reduce_parts_kernel<<<1, kReduceThreads, 0, ctx.stream>>>(
      part_v, part_h, tiles, in.l1 ? MonoidKind::Plus : in.monoid, identity, out);
  SPINDLE_CUDA_CHECK_LAUNCH("reduce_parts_kernel");
  T result{};
  SPINDLE_CUDA_CHECK(cudaMemcpyAsync(&result, out, sizeof(T), cudaMemcpyDeviceToHost, ctx.stream));
  ctx.synchronize();
  count_scalar_read();
  return result;
}

template <class T, class I, class VV>
__global__ void __launch_bounds__(256) reduce_rows_kernel(const DeviceCsr<I, VV> g, MonoidKind m,
                                                          const VectorResult<T> out, bool general) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.rows) return;
  const std::int64_t k0 = g.row_ptr[i], k1 = g.row_ptr[i + 1];
  T acc = out.identity;
  if (k1 > k0) {
    if constexpr (is_pattern_v<VV>) {
      acc = monoid_first(m, out.identity, T(1));
      for (std::int64_t k = k0 + 1; k < k1; ++k) acc = monoid_apply(m, acc, T(1));
    } else {
      // From the identity, as the CPU backend: a NaN first entry is skipped by Min / Max.
      acc = monoid_first(m, out.identity, static_cast<T>(g.values[k0]));
      for (std::int64_t k = k0 + 1; k < k1; ++k)
        acc = monoid_apply(m, acc, static_cast<T>(g.values[k]));
    }
  }
  if (general) {
    write_result<true>(out, i, acc, k1 > k0);
  } else {
    write_result<false>(out, i, acc, k1 > k0);
  }
}

}  // namespace

template <class T>
T reduce(MonoidKind monoid, const Vector<T>& u) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  ReduceInput<T> in;
  in.n = u.size();
  const VecIn<T> d = device_in(u);
  in.u = d.values;
  in.up = d.presence;
  in.monoid = monoid;
  in.identity = cpu_kernels::monoid_identity_of<T>(monoid);
  return reduce_on_device(in, in.identity);
}

template <class T>
T l1_distance(const Vector<T>& u, const Vector<T>& v) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  ReduceInput<T> in;
  in.n = u.size();
  const VecIn<T> du = device_in(u), dv = device_in(v);
  in.u = du.values;
  in.up = du.presence;
  in.v = dv.values;
  in.vp = dv.presence;
  in.l1 = true;
  return reduce_on_device(in, T(0));
}

template <class T, class I, class V>
void reduce_rows(Vector<T>& w, const Mask& mask, Accum accum, MonoidKind monoid,
                 const Graph<I, V>& A, bool transpose_a, bool replace) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const Graph<I, V>& G = transpose_a ? A.transpose() : A;
  const bool t_full = G.stats().empty_rows == 0;
  const DeviceMask dm = device_mask(mask);
  const bool no_mask = dm.none && !dm.complement;
  const bool general = !no_mask || accum.enabled;
  const OutputRule rule = output_rule(no_mask, accum.enabled, replace, t_full);
  const VecOut<T> o = device_out(w, rule.keep_old, rule.may_be_sparse());
  const bool full = rule.result_full(o.old_full);
  VectorResult<T> out;
  out.w = o.values;
  out.present = o.presence;
  out.mask = dm;
  out.accum = accum;
  out.replace = replace;
  out.identity = cpu_kernels::monoid_identity_of<T>(monoid);
  const unsigned blocks = static_cast<unsigned>((G.rows() + 255) / 256);
  if constexpr (is_pattern_v<V>) {
    reduce_rows_kernel<T><<<blocks, 256, 0, ctx.stream>>>(device_pattern(G), monoid, out, general);
  } else {
    reduce_rows_kernel<T><<<blocks, 256, 0, ctx.stream>>>(device_csr<V>(G), monoid, out, general);
  }
  SPINDLE_CUDA_CHECK_LAUNCH("reduce_rows_kernel");
  mark_written(w, full);
}

#define SPINDLE_CUDA_REDUCE_(T)                       \
  template T reduce<T>(MonoidKind, const Vector<T>&); \
  template T l1_distance<T>(const Vector<T>&, const Vector<T>&);
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_CUDA_REDUCE_)

#define SPINDLE_CUDA_REDUCE_ROWS_(T, I, V)                                       \
  template void reduce_rows<T, I, V>(Vector<T>&, const Mask&, Accum, MonoidKind, \
                                     const Graph<I, V>&, bool, bool);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_CUDA_REDUCE_ROWS_)

}  // namespace spindle::detail::cuda
