// SPDX-License-Identifier: Apache-2.0
// The sparse x sparse mxm's planner rules (CPU kernels only; see ops/core/spgemm.hpp for the
// thresholds and why).
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

std::string ratio() {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", kDotCostRatio);
  return buf;
}

}  // namespace

std::string spgemm_cannot_run(SpgemmKernel k, const SpgemmInfo& info) {
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
      if (!info.masked) return "the call has no mask";
      if (info.mask_complemented) {
        return "the mask is complemented (the dot form computes the mask's entries only)";
      }
      return "";
  }
  return "unknown kernel";
}

Plan plan_spgemm(const SpgemmInfo& info, const Descriptor& desc) {
  if (info.requested == Device::Cuda) {
    throw Unsupported(
        "sparse x sparse mxm has no CUDA kernel yet; use Device::Cpu (Device::Auto runs it on "
        "the CPU)");
  }
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cpu;
  std::string why = info.requested == Device::Auto
                        ? "on the CPU (sparse x sparse mxm has no CUDA kernel yet); "
                        : "";
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
                      spgemm_cannot_run(desc.spgemm_kernel, info));
}

}  // namespace spindle::detail
