// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file sddmm_run.cuh
/// @brief From a Plan to SDDMM launches, with the COO row array the kernels walk cached on the
/// graph. Shared by the backend entry (sddmm_entry.cuh) and the benchmark harness.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "engine/src/cuda/device_buffer.hpp"
#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/common/launch_record.hpp"
#include "ops/cuda/mxm/coo_rows.cuh"
#include "ops/cuda/mxm/cusparse_spmm.hpp"
#include "ops/cuda/mxm/tuning.hpp"
#include "ops/cuda/sddmm/iir.cuh"
#include "ops/cuda/sddmm/vct.cuh"
#include "ops/cuda/sddmm/wmt.cuh"
#include "spindle/error.hpp"
#include "spindle/graph.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle::detail::cuda {

/// out[e] = accum(out[e], S(e) ⊗ dot[e]) after cuSPARSE computed the plain dot products.
template <class S, class I, class V, class T>
__global__ void sddmm_scale_kernel(SddmmArgs<I, V, T> a, const T* __restrict__ dot) {
  for (std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < a.nnz;
       e += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    sddmm_store<S>(a, e, dot[e]);
  }
}

/// Enqueues the SDDMM `plan` chose on `a` (S = the graph G; row_idx is filled in here).
/// @throws Unsupported, OutOfMemory, DeviceError.
template <class S, class I, class VV, class V>
void run_sddmm(const Plan& plan, SddmmArgs<I, VV, typename S::value_type> a,
               const DeviceCsr<I, Pattern>& structure, const Graph<I, V>& G, cudaStream_t stream) {
  using T = typename S::value_type;
  record_launch(plan, OpKind::Sddmm, plan.sddmm);
  switch (plan.sddmm) {
    case SddmmKernel::Vct:
    case SddmmKernel::Iir:
    case SddmmKernel::Wmt:
      a.row_idx =
          cached_coo_rows(G, structure.row_ptr, structure.rows, structure.nnz, "csr", stream);
      if (plan.sddmm == SddmmKernel::Vct) {
        launch_sddmm_vct<S>(a, stream);
      } else if (plan.sddmm == SddmmKernel::Wmt) {
        launch_sddmm_wmt<S>(a, stream);
      } else {
        launch_sddmm_iir<S>(a, stream);
      }
      SPINDLE_CUDA_CHECK_LAUNCH("sddmm");
      return;
    case SddmmKernel::Cusparse:
      if constexpr (S::kind == SemiringKind::PlusTimes) {
        DeviceBuffer dot(static_cast<std::size_t>(a.nnz) * sizeof(T), "sddmm dot products");
        CusparseSddmm<I, T> op(structure, a.x, a.ldx, a.y, a.ldy, a.k, dot.as<T>());
        if (!op.supported()) throw Unsupported("cuSPARSE SDDMM refused these shapes");
        op.run();
        std::int64_t blocks = (a.nnz + 255) / 256;
        if (blocks > 65536) blocks = 65536;
        sddmm_scale_kernel<S>
            <<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a, dot.as<const T>());
        SPINDLE_CUDA_CHECK_LAUNCH("sddmm_scale");
        return;
      } else {
        throw Unsupported("sddmm: cuSPARSE computes plus_times only");
      }
    default:
      break;
  }
  throw InvalidArgument(std::string("sddmm: kernel ") + to_string(plan.sddmm) +
                        " cannot run on the CUDA backend");
}

/// Times vct, iir and wmt on the operands in `a` (a.out is overwritten: pass a scratch output
/// and no accumulator) and returns the fastest as a tuned Plan listing every time.
template <class S, class I, class VV, class V>
Plan tune_sddmm(const Plan& planned, const SddmmArgs<I, VV, typename S::value_type>& a,
                const DeviceCsr<I, Pattern>& structure, const Graph<I, V>& G, cudaStream_t stream,
                int reps = 3) {
  std::vector<std::pair<Plan, double>> timed;
  for (SddmmKernel k : {SddmmKernel::Vct, SddmmKernel::Iir, SddmmKernel::Wmt}) {
    Plan p = planned;
    p.sddmm = k;
    p.params = LaunchParams{};
    timed.emplace_back(p, median_ms([&] { run_sddmm<S>(p, a, structure, G, stream); }, reps));
  }
  return pick_tuned(std::move(timed), "on this graph for K = " + std::to_string(a.k),
                    [](const Plan& p) { return std::string(to_string(p.sddmm)); });
}

}  // namespace spindle::detail::cuda
