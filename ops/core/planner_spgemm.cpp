// SPDX-License-Identifier: Apache-2.0
// The sparse x sparse mxm's planner rules, CPU and CUDA (see ops/core/spgemm.hpp for the
// thresholds and why).
#include <algorithm>
#include <cstdio>
#include <string>

#include "ops/core/planner.hpp"
#include "ops/core/spgemm.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace {

std::int64_t value_bytes(ValueKind v) { return v == ValueKind::Double ? 8 : 4; }

// Bytes of one thread's dense accumulator: a value and a 64-bit marker per output column.
std::int64_t dense_accum_bytes(const SpgemmInfo& info) {
  const std::int64_t per = value_bytes(info.value) + 8;
  return info.cols > kDenseAccumMaxBytes / per ? kDenseAccumMaxBytes + 1 : info.cols * per;
}

std::string num(std::int64_t v) { return std::to_string(v); }

std::string ratio_of(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", r);
  return buf;
}
std::string ratio() { return ratio_of(kDotCostRatio); }

}  // namespace

namespace {

bool is_cuda_kernel(SpgemmKernel k) {
  return k == SpgemmKernel::CudaRowwise || k == SpgemmKernel::CudaMaskedDot;
}

// Why the row-wise CUDA form cannot run (its longest rows need a dense slab that does not fit).
std::string cuda_rowwise_cannot_run(const SpgemmInfo& info) {
  const std::int64_t vb = value_bytes(info.value);
  const int table =
      spgemm_table_max(info.smem_per_block, info.index == IndexKind::Int64 ? 8 : 4, vb);
  const std::int64_t bound = std::min(info.max_row_flops, info.cols);
  if (2 * bound <= table) return "";
  const std::int64_t slab = spgemm_slab_bytes(info.cols, vb, true);
  if (info.device_memory > 0 && slab > info.device_memory / kCudaSpgemmSlabShare) {
    return "its longest rows need a dense accumulator of " + num(slab) + " bytes (" +
           num(info.cols) + " columns), more than 1/" + num(kCudaSpgemmSlabShare) +
           " of the device's " + num(info.device_memory) + " bytes";
  }
  return "";
}

}  // namespace

std::string spgemm_cannot_run(SpgemmKernel k, const SpgemmInfo& info) {
  if (is_cuda_kernel(k) && info.target != Device::Cuda) {
    return std::string(to_string(k)) + " is a CUDA kernel and the call runs on the CPU";
  }
  if (!is_cuda_kernel(k) && k != SpgemmKernel::Auto && info.target == Device::Cuda) {
    return std::string(to_string(k)) + " is a CPU kernel and the call runs on CUDA";
  }
  const auto dense_too_big = [&]() -> std::string {
    const std::int64_t b = dense_accum_bytes(info);
    if (b <= kDenseAccumMaxBytes) return "";
    return "its dense accumulator for " + num(info.cols) + " columns exceeds " +
           num(kDenseAccumMaxBytes) + " bytes per thread";
  };
  switch (k) {
    case SpgemmKernel::Auto:
    case SpgemmKernel::GustavsonHash:
      return "";
    case SpgemmKernel::GustavsonDense:
      return dense_too_big();
    case SpgemmKernel::MaskedGustavson:
      if (!info.masked) return "the call has no mask";
      return dense_too_big();
    case SpgemmKernel::MaskedDot:
    case SpgemmKernel::CudaMaskedDot:
      if (!info.masked) return "the call has no mask";
      if (info.mask_complemented) {
        return "the mask is complemented (the dot form computes the mask's entries only)";
      }
      return "";
    case SpgemmKernel::CudaRowwise:
      return cuda_rowwise_cannot_run(info);
  }
  return "unknown kernel";
}

namespace {

// The CUDA plan, or why there is none ("" and *p set when there is).
std::string plan_spgemm_cuda(const SpgemmInfo& info, Plan* p) {
  p->op = OpKind::Mxm;
  p->device = Device::Cuda;
  const std::string flops = num(info.flops) + " products";
  const std::string rowwise_no = cuda_rowwise_cannot_run(info);
  if (info.masked && !info.mask_complemented) {
    const std::int64_t dot = info.dot_cost + (info.transpose_b_cached ? 0 : info.nnz_b);
    if (static_cast<double>(dot) < kCudaDotCostRatio * static_cast<double>(info.flops) ||
        !rowwise_no.empty()) {
      p->spgemm = SpgemmKernel::CudaMaskedDot;
      p->reason = "mask of " + num(info.mask_entries) + " entries: dot-product cost " + num(dot) +
                  (rowwise_no.empty() ? " < " + ratio_of(kCudaDotCostRatio) + " x " + flops
                                      : " (the row-wise form cannot run: " + rowwise_no + ")");
      return "";
    }
  }
  if (!rowwise_no.empty()) return rowwise_no;
  p->spgemm = SpgemmKernel::CudaRowwise;
  p->reason = "row-wise, " + flops + " (longest row " + num(info.max_row_flops) +
              "): ESC for rows of <= " + num(kCudaSpgemmEscMax) +
              " products, shared-memory hash tables, dense slabs beyond" +
              (info.masked ? "; the mask tested per product" : "");
  return "";
}

void set_rowwise_params(const SpgemmInfo& info, Plan& p) {
  if (p.spgemm != SpgemmKernel::CudaRowwise) return;
  p.params.items_per_worker = kCudaSpgemmEscMax;
  p.params.tile = spgemm_table_max(info.smem_per_block, info.index == IndexKind::Int64 ? 8 : 4,
                                   value_bytes(info.value));
}

}  // namespace

Plan plan_spgemm(const SpgemmInfo& info, const Descriptor& desc) {
  std::string why;
  if (info.target == Device::Cuda) {
    const bool forced_cuda = is_cuda_kernel(desc.spgemm_kernel);
    if (info.requested == Device::Auto && !forced_cuda && info.flops < kCudaSpgemmMinProducts) {
      why = "on the CPU: " + num(info.flops) + " products < " + num(kCudaSpgemmMinProducts) +
            " (a CUDA call's transfers and launches would cost more); ";
    } else {
      Plan p;
      const std::string no = plan_spgemm_cuda(info, &p);
      if (no.empty()) {
        set_rowwise_params(info, p);
        if (desc.spgemm_kernel == SpgemmKernel::Auto) return p;
        p = apply_forced(p, &Plan::spgemm, desc.spgemm_kernel,
                         spgemm_cannot_run(desc.spgemm_kernel, info));
        set_rowwise_params(info, p);
        return p;
      }
      if (info.requested == Device::Cuda) {
        throw OutOfMemory("mxm (sparse) on CUDA: " + no);
      }
      why = "on the CPU: the CUDA row-wise form cannot run (" + no + "); ";
    }
  } else if (info.requested == Device::Auto && info.target == Device::Cpu &&
             is_cuda_kernel(desc.spgemm_kernel)) {
    why = "on the CPU (no CUDA device); ";
  }
  SpgemmInfo cpu = info;
  cpu.target = Device::Cpu;
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cpu;
  const std::int64_t dense_bytes = dense_accum_bytes(info);
  const bool dense_ok = dense_bytes <= kDenseAccumMaxBytes;
  const std::string flops = num(info.flops) + " products";
  if (info.masked && !info.mask_complemented) {
    const std::int64_t dot =
        info.dot_cost + (info.transpose_b_cached ? 0 : info.nnz_b);  // + building B^T
    if (static_cast<double>(dot) < kDotCostRatio * static_cast<double>(info.flops)) {
      p.spgemm = SpgemmKernel::MaskedDot;
      why += "mask of " + num(info.mask_entries) + " entries: dot-product cost " + num(dot) +
             (info.transpose_b_cached ? "" : " (with building B^T)") + " < " + ratio() + " x " +
             flops;
    } else if (dense_ok) {
      p.spgemm = SpgemmKernel::MaskedGustavson;
      why += "mask of " + num(info.mask_entries) + " entries: dot-product cost " + num(dot) +
             " >= " + ratio() + " x " + flops + "; row-wise, products outside the mask skipped";
    } else {
      p.spgemm = SpgemmKernel::GustavsonHash;
      why += "too many columns (" + num(info.cols) +
             ") for a dense accumulator; hash rows, the mask applied after";
    }
  } else if (info.masked) {
    if (dense_ok) {
      p.spgemm = SpgemmKernel::MaskedGustavson;
      why += "complemented mask: row-wise, the mask's columns skipped";
    } else {
      p.spgemm = SpgemmKernel::GustavsonHash;
      why += "too many columns (" + num(info.cols) +
             ") for a dense accumulator; hash rows, the complemented mask applied after";
    }
  } else {
    const std::int64_t per_row =
        info.nonempty_rows > 0 ? info.flops / info.nonempty_rows : std::int64_t{0};
    if (dense_ok && dense_bytes <= kDenseAccumCacheBytes) {
      p.spgemm = SpgemmKernel::GustavsonDense;
      why += "dense accumulator of " + num(dense_bytes) +
             " bytes fits the cache (<= " + num(kDenseAccumCacheBytes) + ")";
    } else if (dense_ok && per_row * kDenseAccumFill >= info.cols) {
      p.spgemm = SpgemmKernel::GustavsonDense;
      why += num(per_row) + " products per row fill >= 1/" + num(kDenseAccumFill) + " of " +
             num(info.cols) + " columns: dense accumulator";
    } else {
      p.spgemm = SpgemmKernel::GustavsonHash;
      why += num(per_row) + " products per row for " + num(info.cols) +
             " columns: hash accumulator sized per row";
    }
  }
  p.reason = why + " (" + flops + ", " + num(info.threads) + " threads)";
  if (desc.spgemm_kernel == SpgemmKernel::Auto) return p;
  return apply_forced(p, &Plan::spgemm, desc.spgemm_kernel,
                      spgemm_cannot_run(desc.spgemm_kernel, cpu));
}

}  // namespace spindle::detail
