// SPDX-License-Identifier: Apache-2.0
// The generic path's host entries (generic_entry.hpp): operands to the device, the output rule,
// the long-row list cached on the graph, then one launcher call. Host code: the kernels are
// reached through GenericKernels, instantiated in generic_kernels_f32.cu / _f64.cu (built-in
// semirings) or in a user's .cu file (SPINDLE_CUDA_SEMIRING).
#include "ops/cuda/generic/generic_entry.hpp"

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <string>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/device_mirror.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/core/instantiate.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/common/output_rule.hpp"
#include "ops/cuda/mxm/dense_util.hpp"
#include "spindle/error.hpp"
#include "spindle/executor.hpp"

namespace spindle::detail::cuda {
namespace {

/// The rows of G with more than `threshold` entries, on the device (cached on G per threshold).
template <class I>
struct LongRowsSlot : ExtensionSlot {
  DeviceBuffer ids;
  std::int64_t count = 0;
};

template <class I, class V>
const LongRowsSlot<I>& long_rows(const Graph<I, V>& G, std::int64_t threshold,
                                 cudaStream_t stream) {
  return G.template extension<LongRowsSlot<I>>(
      "cuda.generic.long_rows." + std::to_string(threshold), [&] {
        auto slot = std::make_unique<LongRowsSlot<I>>();
        if (threshold > 0 && G.stats().max_row > threshold) {
          std::vector<I> ids;
          const I* rp = G.row_ptr().data();
          for (std::int64_t i = 0; i < G.rows(); ++i) {
            if (static_cast<std::int64_t>(rp[i + 1] - rp[i]) > threshold) {
              ids.push_back(static_cast<I>(i));
            }
          }
          slot->count = static_cast<std::int64_t>(ids.size());
          slot->ids = upload_async(ids, "generic kernels: long rows", stream);
          SPINDLE_CUDA_CHECK(cudaStreamSynchronize(stream));  // ids dies here
        }
        return slot;
      });
}

/// The device CSR of G as the kernels of `s` read it: values as T, or the pattern alone.
template <class T, class I, class V, class F>
void with_device_csr(const GenericSemiring<T>& s, const Graph<I, V>& G, F&& f) {
  if constexpr (is_pattern_v<V>) {
    f(device_pattern(G));
  } else {
    if (s.reads_values) {
      f(device_csr<T>(G));
    } else {
      f(device_pattern(G));
    }
  }
}

template <class T>
void require(const GenericSemiring<T>& s) {
  if (s.kernels == nullptr) {
    throw InvalidArgument("generic CUDA kernels: no launcher table for this semiring");
  }
}

}  // namespace

template <class T, class I, class V>
void generic_mxv(const Plan& plan, const GenericSemiring<T>& s, Vector<T>& w, const Mask& mask,
                 Accum accum, const Graph<I, V>& M, const Vector<T>& u, bool replace,
                 bool swapped) {
  require(s);
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const GraphStats& st = M.stats();
  if (st.rows == 0) return;
  const VecIn<T> uin = device_in(u);
  const DeviceMask dm = device_mask(mask);
  const bool no_mask = dm.none && !dm.complement;
  const bool t_full = uin.presence == nullptr && st.empty_rows == 0;
  const OutputRule rule = output_rule(no_mask, accum.enabled, replace, t_full);
  const VecOut<T> wout = device_out(w, rule.keep_old, rule.may_be_sparse());
  const bool full = rule.result_full(wout.old_full);
  const std::int64_t long_row = plan.params.items_per_worker;
  const LongRowsSlot<I>& longs = long_rows(M, long_row, ctx.stream);
  with_device_csr(s, M, [&](const auto& d) {
    using VV = std::remove_const_t<std::remove_pointer_t<decltype(d.values)>>;
    GenericMxvArgs<T, I, VV> a;
    a.M = d;
    a.u = uin.values;
    a.u_present = uin.presence;
    a.out.w = wout.values;
    a.out.present = wout.presence;
    a.out.mask = dm;
    a.out.accum = accum;
    a.out.replace = replace;
    a.out.identity = s.identity;
    a.long_rows = longs.ids.template as<const I>();
    a.n_long = longs.count;
    a.long_row = long_row;
    a.lanes = plan.params.lanes_per_row > 0 ? plan.params.lanes_per_row : 32;
    const GenericKernelSet<T, I, VV>& k = s.kernels->template set<I, VV>();
    const auto launch = swapped && !s.commutative ? k.mxv_swapped : k.mxv;
    if (launch == nullptr) {
      throw InvalidArgument("generic CUDA kernels: this semiring has no swapped mxv (vxm)");
    }
    // A vxm runs as an mxv over the transpose; the launch is recorded as the op planned.
    record_launch(plan, plan.op == OpKind::Vxm ? OpKind::Vxm : OpKind::Mxv, MxvKernel::Generic);
    launch(s.codes, a, ctx.stream);
    SPINDLE_CUDA_CHECK_LAUNCH("generic mxv");
  });
  mark_written(w, full);
}

template <class T, class I, class V>
void generic_mxm(const Plan& plan, const GenericSemiring<T>& s, DenseMatrix<T>& C, Accum accum,
                 const Graph<I, V>& A, const DenseMatrix<T>& B, const Vector<T>* bias, Unary<T> act,
                 bool transpose_a, bool transpose_b) {
  require(s);
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const Graph<I, V>& G = transpose_a ? A.transpose() : A;
  const DenseOperand<T> bop = dense_operand(B, transpose_b, "mxm: B transposed", ctx.stream);
  const T* b = bop.data;
  const std::int64_t ldb = bop.ld;
  const std::int64_t long_row = plan.params.items_per_worker;
  const LongRowsSlot<I>& longs = long_rows(G, long_row, ctx.stream);
  T* c = device_out(C, accum.enabled);
  with_device_csr(s, G, [&](const auto& d) {
    using VV = std::remove_const_t<std::remove_pointer_t<decltype(d.values)>>;
    GenericSpmmArgs<T, I, VV> a;
    a.A = d;
    a.b = b;
    a.ldb = ldb;
    a.c = c;
    a.ldc = C.cols();
    a.n = C.cols();
    a.epi.bias = bias != nullptr ? device_in(*bias).values : nullptr;
    a.epi.act = act.op;
    a.epi.act_scalar = act.scalar;
    a.epi.accum = accum;
    a.identity = s.identity;
    a.long_rows = longs.ids.template as<const I>();
    a.n_long = longs.count;
    a.long_row = long_row;
    a.lanes = plan.params.lanes_per_row > 0 ? plan.params.lanes_per_row : 32;
    record_launch(plan, OpKind::Mxm, MxmKernel::Generic);
    s.kernels->template set<I, VV>().spmm(s.codes, a, ctx.stream);
    SPINDLE_CUDA_CHECK_LAUNCH("generic mxm");
  });
  mark_written(C);
}

template <class T, class I, class V>
void generic_sddmm(const Plan& plan, const GenericSemiring<T>& s, std::vector<T>& out, Accum accum,
                   const Graph<I, V>& S, const DenseMatrix<T>& X, const DenseMatrix<T>& Y,
                   bool transpose_b) {
  require(s);
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const std::int64_t nnz = S.nnz();
  const T* x = device_in(X);
  // op(Y) = Yᵀ: Y is K x cols(S).
  const DenseOperand<T> yop = dense_operand(Y, transpose_b, "sddmm: Y transposed", ctx.stream);
  const T* y = yop.data;
  const std::int64_t ldy = yop.ld;
  DeviceBuffer d_out(static_cast<std::size_t>(nnz) * sizeof(T), "sddmm output");
  if (accum.enabled) {
    SPINDLE_CUDA_CHECK(cudaMemcpyAsync(d_out.get(), out.data(), d_out.bytes(),
                                       cudaMemcpyHostToDevice, ctx.stream));
  }
  // S(e) is read by the final multiply: values unless the multiply ignores them.
  with_device_csr(s, S, [&](const auto& d) {
    using VV = std::remove_const_t<std::remove_pointer_t<decltype(d.values)>>;
    GenericSddmmArgs<T, I, VV> a;
    a.S = d;
    a.x = x;
    a.ldx = X.cols();
    a.y = y;
    a.ldy = ldy;
    a.k = X.cols();
    a.out = d_out.as<T>();
    a.accum = accum;
    a.identity = s.identity;
    a.lanes = plan.params.lanes_per_row > 0 ? plan.params.lanes_per_row : 32;
    record_launch(plan, OpKind::Sddmm, SddmmKernel::Generic);
    s.kernels->template set<I, VV>().sddmm(s.codes, a, ctx.stream);
    SPINDLE_CUDA_CHECK_LAUNCH("generic sddmm");
  });
  SPINDLE_CUDA_CHECK(
      cudaMemcpyAsync(out.data(), d_out.get(), d_out.bytes(), cudaMemcpyDeviceToHost, ctx.stream));
  ctx.synchronize();
}

#define SPINDLE_GENERIC_ENTRY_(T, I, V)                                                         \
  template void generic_mxv<T, I, V>(const Plan&, const GenericSemiring<T>&, Vector<T>&,        \
                                     const Mask&, Accum, const Graph<I, V>&, const Vector<T>&,  \
                                     bool, bool);                                               \
  template void generic_mxm<T, I, V>(const Plan&, const GenericSemiring<T>&, DenseMatrix<T>&,   \
                                     Accum, const Graph<I, V>&, const DenseMatrix<T>&,          \
                                     const Vector<T>*, Unary<T>, bool, bool);                   \
  template void generic_sddmm<T, I, V>(const Plan&, const GenericSemiring<T>&, std::vector<T>&, \
                                       Accum, const Graph<I, V>&, const DenseMatrix<T>&,        \
                                       const DenseMatrix<T>&, bool);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_GENERIC_ENTRY_)
#undef SPINDLE_GENERIC_ENTRY_

}  // namespace spindle::detail::cuda
