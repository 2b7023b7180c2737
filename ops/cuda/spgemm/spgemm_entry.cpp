// SPDX-License-Identifier: Apache-2.0
// The sparse mxm's CUDA host entry (ops/core/spgemm.hpp): host CSR arrays to the device, one
// spgemm_device call, the result back to host vectors.
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "engine/src/cuda/cuda_check.hpp"
#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/transfer.hpp"
#include "ops/core/spgemm.hpp"
#include "ops/cuda/spgemm/spgemm_device.hpp"
#include "spindle/detail/host_pages.hpp"

namespace spindle::detail::cuda {
namespace {

/// A host CSR's device copy (values only when `values`).
template <class I, class T>
struct Uploaded {
  DeviceBuffer rp;
  DeviceBuffer ci;
  DeviceBuffer v;
  DeviceCsr<I, T> op;
};

template <class I, class T>
void upload(const CsrView<I, T>& m, bool values, const char* what, cudaStream_t st,
            Uploaded<I, T>& u) {
  const std::int64_t nnz = m.rp[m.rows];
  u.rp = DeviceBuffer(static_cast<std::size_t>(m.rows + 1) * sizeof(I), what);
  u.ci = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(I), what);
  copy_to_device(u.rp.get(), m.rp, u.rp.bytes(), st);
  copy_to_device(u.ci.get(), m.ci, u.ci.bytes(), st);
  u.op.rows = m.rows;
  u.op.cols = m.cols;
  u.op.nnz = nnz;
  u.op.row_ptr = u.rp.template as<const I>();
  u.op.col_idx = u.ci.template as<const I>();
  if (values && m.v != nullptr) {
    u.v = DeviceBuffer(static_cast<std::size_t>(nnz) * sizeof(T), what);
    copy_to_device(u.v.get(), m.v, u.v.bytes(), st);
    u.op.values = u.v.template as<const T>();
  }
}

}  // namespace

template <class T, class I>
void spgemm_cuda_host(const Plan& plan, SemiringKind kind, const CsrView<I, T>& A,
                      const CsrView<I, T>& B, const CsrView<I, T>* Bt, const MaskView<I>& mask,
                      CsrArrays<I, T>& out) {
  Context& ctx = context();
  std::lock_guard<std::recursive_mutex> lock(ctx.mutex);
  const cudaStream_t st = ctx.stream;
  const SemiringCodes codes = semiring_codes(kind);
  const bool values = codes.mul != MulOp::Pair;  // pair ignores both operands' values
  Uploaded<I, T> a;
  Uploaded<I, T> b;
  upload(A, values, "mxm (sparse, CUDA): A", st, a);
  if (plan.spgemm == SpgemmKernel::CudaMaskedDot) {
    upload(*Bt, values, "mxm (sparse, CUDA): B^T", st, b);
  } else {
    upload(B, values, "mxm (sparse, CUDA): B", st, b);
  }
  DeviceBuffer mrp;
  DeviceBuffer mci;
  MaskView<I> m;  // on the device
  if (mask.present()) {
    const std::int64_t mnnz = mask.rp[A.rows];
    mrp =
        DeviceBuffer(static_cast<std::size_t>(A.rows + 1) * sizeof(I), "mxm (sparse, CUDA): mask");
    mci = DeviceBuffer(static_cast<std::size_t>(mnnz) * sizeof(I), "mxm (sparse, CUDA): mask");
    copy_to_device(mrp.get(), mask.rp, mrp.bytes(), st);
    copy_to_device(mci.get(), mask.ci, mci.bytes(), st);
    m.rp = mrp.template as<const I>();
    m.ci = mci.template as<const I>();
    m.complement = mask.complement;
  }
  SpgemmRowwiseConfig cfg;  // the plan's (plan_spgemm always sets both)
  cfg.esc_max = static_cast<int>(plan.params.items_per_worker);
  cfg.table_max = plan.params.tile;
  const RuntimeSemiring<T> s = runtime_semiring<T>(kind);
  const T identity = visit_semiring<T>(kind, [](auto S) { return decltype(S)::identity(); });
  SpgemmDeviceResult c;
  const bool dot = plan.spgemm == SpgemmKernel::CudaMaskedDot;
  spgemm_device<T, I>(plan.spgemm, cfg, s, identity, a.op, dot ? a.op : b.op, dot ? &b.op : nullptr,
                      m, c, st);
  out.rp.resize(static_cast<std::size_t>(A.rows) + 1);
  out.ci = large_workspace<I>(static_cast<std::size_t>(c.nnz), "mxm (sparse, CUDA): C columns");
  out.v = large_workspace<T>(static_cast<std::size_t>(c.nnz), "mxm (sparse, CUDA): C values");
  copy_to_host(out.rp.data(), c.rp.get(), out.rp.size() * sizeof(I), st);
  if (c.nnz > 0) {
    copy_to_host(out.ci.data(), c.ci.get(), out.ci.size() * sizeof(I), st);
    copy_to_host(out.v.data(), c.v.get(), out.v.size() * sizeof(T), st);
  }
}

SPINDLE_INSTANTIATE_SPGEMM_CUDA_HOST_ALL_

}  // namespace spindle::detail::cuda
