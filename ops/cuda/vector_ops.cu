// SPDX-License-Identifier: Apache-2.0
// CUDA backend: element-wise vector and dense-matrix operations (backend.hpp). Results stay on
// the device (spindle/cuda/residency.hpp).
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/transfer.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/index_backend.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "ops/cuda/vector/indexwise.cuh"

namespace spindle::detail::cuda {
namespace {

unsigned blocks_for(std::int64_t n) { return static_cast<unsigned>((n + 255) / 256); }

// Runs an index-wise operation: t_full says whether t(i) exists for every i.
template <class T>
void run_indexwise(Vector<T>& w, const Mask& mask, Accum accum, bool replace, IndexwiseArgs<T> a,
                   bool t_full) {
  Context& ctx = context();
  const DeviceMask dm = device_mask(mask);
  const bool no_mask = dm.none && !dm.complement;
  const bool general = !no_mask || accum.enabled;
  const OutputRule rule = output_rule(no_mask, accum.enabled, replace, t_full);
  const VecOut<T> out = device_out(w, rule.keep_old, rule.may_be_sparse());
  const bool full = rule.result_full(out.old_full);
  a.n = w.size();
  a.out.w = out.values;
  a.out.present = out.presence;
  a.out.mask = dm;
  a.out.accum = accum;
  a.out.replace = replace;
  a.out.identity = T{};
  if (general) {
    indexwise_kernel<true><<<blocks_for(a.n), 256, 0, ctx.stream>>>(a);
  } else {
    indexwise_kernel<false><<<blocks_for(a.n), 256, 0, ctx.stream>>>(a);
  }
  SPINDLE_CUDA_CHECK_LAUNCH("indexwise_kernel");
  mark_written(w, full);
}

}  // namespace

template <class T>
void ewise_add(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
               const Vector<T>& v, bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::EwiseAdd;
  const VecIn<T> du = device_in(u), dv = device_in(v);
  a.u = du.values;
  a.up = du.presence;
  a.v = dv.values;
  a.vp = dv.presence;
  a.op = op;
  run_indexwise(w, mask, accum, replace, a, du.presence == nullptr || dv.presence == nullptr);
}

template <class T>
void ewise_mult(Vector<T>& w, const Mask& mask, Accum accum, BinaryOp op, const Vector<T>& u,
                const Vector<T>& v, bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::EwiseMult;
  const VecIn<T> du = device_in(u), dv = device_in(v);
  a.u = du.values;
  a.up = du.presence;
  a.v = dv.values;
  a.vp = dv.presence;
  a.op = op;
  run_indexwise(w, mask, accum, replace, a, du.presence == nullptr && dv.presence == nullptr);
}

template <class T>
void apply(Vector<T>& w, const Mask& mask, Accum accum, Unary<T> op, const Vector<T>& u,
           bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::Apply;
  const VecIn<T> du = device_in(u);
  a.u = du.values;
  a.up = du.presence;
  a.unary = op.op;
  a.scalar = op.scalar;
  run_indexwise(w, mask, accum, replace, a, du.presence == nullptr);
}

template <class T>
void apply_index(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, T s,
                 bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::ApplyIndex;
  // Only u's presence is read (a full u needs no device copy at all; a sparse u whose device copy
  // is stale goes up whole, values included).
  if (!u.is_full()) a.up = device_in(u).presence;
  a.scalar = s;
  run_indexwise(w, mask, accum, replace, a, a.up == nullptr);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, T s, bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::AssignScalar;
  a.scalar = s;
  run_indexwise(w, mask, accum, replace, a, true);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, const Vector<T>& u, bool replace) {
  std::lock_guard<std::recursive_mutex> lock(context().mutex);
  IndexwiseArgs<T> a;
  a.kind = IndexwiseKind::AssignVector;
  const VecIn<T> du = device_in(u);
  a.u = du.values;
  a.up = du.presence;
  run_indexwise(w, mask, accum, replace, a, du.presence == nullptr);
}

template <class T>
void assign(Vector<T>& w, const Mask& mask, Accum accum, T s, const std::vector<std::int64_t>& idx,
            bool replace) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t n = w.size();
  const std::int64_t k = static_cast<std::int64_t>(idx.size());
  const DeviceMask dm = device_mask(mask);
  const bool no_mask = dm.none && !dm.complement;
  const bool removes = replace && !no_mask;  // unselected entries leave, listed or not
  // A repeated index is assigned once (as on the CPU): with an accumulator, or when entries may
  // leave, the list is first marked in a byte per entry of w and the output step runs per index.
  // Otherwise every list entry writes its own target (a repeat writes the same value again).
  const bool marked = accum.enabled || removes;
  if (k == 0 && !removes) return;  // nothing is written, nothing removed: w stays as it is
  // Scratch before the output (a failed allocation leaves w as it was): the list, then the marks.
  const std::size_t list_bytes =
      (static_cast<std::size_t>(k) * sizeof(std::int64_t) + 255) & ~static_cast<std::size_t>(255);
  const std::size_t bytes = list_bytes + (marked ? static_cast<std::size_t>(n) : 0);
  auto* base = bytes > 0 ? static_cast<unsigned char*>(ctx.scratch(bytes)) : nullptr;
  const auto* list = reinterpret_cast<const std::int64_t*>(base);
  std::uint8_t* hit = marked ? base + list_bytes : nullptr;
  if (k > 0) {
    copy_to_device(base, idx.data(), static_cast<std::size_t>(k) * sizeof(std::int64_t),
                   ctx.stream);
  }
  if (marked) SPINDLE_CUDA_CHECK(cudaMemsetAsync(hit, 0, static_cast<std::size_t>(n), ctx.stream));
  // w's old content is kept (entries off the list stay); it may lose entries only under removes.
  const VecOut<T> out = device_out(w, /*keep_old=*/true, /*may_be_sparse=*/removes);
  VectorResult<T> r;
  r.w = out.values;
  r.present = out.presence;
  r.mask = dm;
  r.accum = accum;
  r.replace = replace;
  if (k > 0) {
    assign_list_kernel<<<blocks_for(k), 256, 0, ctx.stream>>>(r, list, k, s, hit);
    SPINDLE_CUDA_CHECK_LAUNCH("assign_list_kernel");
  }
  if (marked) {
    assign_marked_kernel<<<blocks_for(n), 256, 0, ctx.stream>>>(r, hit, n, s);
    SPINDLE_CUDA_CHECK_LAUNCH("assign_marked_kernel");
  }
  mark_written(w, out.old_full && !removes);
}

template <class T>
void ewise(DenseMatrix<T>& C, Accum accum, BinaryOp op, const DenseMatrix<T>& A,
           const DenseMatrix<T>& B) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const T* a = device_in(A);
  const T* b = device_in(B);
  T* c = device_out(C, accum.enabled);
  dense_elementwise_kernel<<<blocks_for(C.size()), 256, 0, ctx.stream>>>(
      c, a, b, C.size(), op, UnaryOp::Identity, T{}, accum);
  SPINDLE_CUDA_CHECK_LAUNCH("dense_elementwise_kernel");
  mark_written(C);
}

template <class T>
void apply(DenseMatrix<T>& C, Accum accum, Unary<T> op, const DenseMatrix<T>& A) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const T* a = device_in(A);
  T* c = device_out(C, accum.enabled);
  dense_elementwise_kernel<T><<<blocks_for(C.size()), 256, 0, ctx.stream>>>(
      c, a, nullptr, C.size(), BinaryOp::First, op.op, op.scalar, accum);
  SPINDLE_CUDA_CHECK_LAUNCH("dense_elementwise_kernel");
  mark_written(C);
}

template <class T>
void add_row_bias(DenseMatrix<T>& C, const Vector<T>& bias, Unary<T> op) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const VecIn<T> b = device_in(bias);
  T* c = device_out(C, true);
  add_row_bias_kernel<<<blocks_for(C.size()), 256, 0, ctx.stream>>>(c, C.rows(), C.cols(), b.values,
                                                                    b.presence, op.op, op.scalar);
  SPINDLE_CUDA_CHECK_LAUNCH("add_row_bias_kernel");
  mark_written(C);
}

#define SPINDLE_CUDA_VECTOR_OPS_(T)                                                            \
  template void ewise_add<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,       \
                             const Vector<T>&, bool);                                          \
  template void ewise_mult<T>(Vector<T>&, const Mask&, Accum, BinaryOp, const Vector<T>&,      \
                              const Vector<T>&, bool);                                         \
  template void apply<T>(Vector<T>&, const Mask&, Accum, Unary<T>, const Vector<T>&, bool);    \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, bool);                            \
  template void assign<T>(Vector<T>&, const Mask&, Accum, T, const std::vector<std::int64_t>&, \
                          bool);                                                               \
  template void assign<T>(Vector<T>&, const Mask&, Accum, const Vector<T>&, bool);             \
  SPINDLE_INSTANTIATE_INDEX_APPLY_BACKEND(T)
SPINDLE_FOR_EACH_VECTOR_TYPE(SPINDLE_CUDA_VECTOR_OPS_)

#define SPINDLE_CUDA_DENSE_OPS_(T)                                                 \
  template void ewise<T>(DenseMatrix<T>&, Accum, BinaryOp, const DenseMatrix<T>&,  \
                         const DenseMatrix<T>&);                                   \
  template void apply<T>(DenseMatrix<T>&, Accum, Unary<T>, const DenseMatrix<T>&); \
  template void add_row_bias<T>(DenseMatrix<T>&, const Vector<T>&, Unary<T>);
SPINDLE_FOR_EACH_DENSE_TYPE(SPINDLE_CUDA_DENSE_OPS_)

}  // namespace spindle::detail::cuda
