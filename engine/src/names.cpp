// SPDX-License-Identifier: Apache-2.0
// Printable names of the engine's enums, and parsing of kernel / device names for the CLI.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "spindle/operators.hpp"
#include "spindle/plan.hpp"
#include "spindle/semiring.hpp"

namespace spindle {

const char* to_string(SemiringKind k) {
  switch (k) {
    case SemiringKind::PlusTimes:
      return "plus_times";
    case SemiringKind::MinPlus:
      return "min_plus";
    case SemiringKind::MaxPlus:
      return "max_plus";
    case SemiringKind::MaxTimes:
      return "max_times";
    case SemiringKind::MinTimes:
      return "min_times";
    case SemiringKind::PlusMin:
      return "plus_min";
    case SemiringKind::LorLand:
      return "lor_land";
    case SemiringKind::AnyPair:
      return "any_pair";
    case SemiringKind::PlusPair:
      return "plus_pair";
    case SemiringKind::MaxMin:
      return "max_min";
    case SemiringKind::Custom:
      return "custom";
  }
  return "?";
}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::First:
      return "first";
    case BinaryOp::Second:
      return "second";
    case BinaryOp::Plus:
      return "plus";
    case BinaryOp::Minus:
      return "minus";
    case BinaryOp::Times:
      return "times";
    case BinaryOp::Div:
      return "div";
    case BinaryOp::Min:
      return "min";
    case BinaryOp::Max:
      return "max";
    case BinaryOp::LOr:
      return "lor";
    case BinaryOp::LAnd:
      return "land";
    case BinaryOp::Any:
      return "any";
    case BinaryOp::Pair:
      return "pair";
  }
  return "?";
}

const char* to_string(UnaryOp op) {
  switch (op) {
    case UnaryOp::Identity:
      return "identity";
    case UnaryOp::AInv:
      return "ainv";
    case UnaryOp::MInv:
      return "minv";
    case UnaryOp::Abs:
      return "abs";
    case UnaryOp::One:
      return "one";
    case UnaryOp::Relu:
      return "relu";
    case UnaryOp::Sqrt:
      return "sqrt";
    case UnaryOp::RSqrt:
      return "rsqrt";
    case UnaryOp::PlusScalar:
      return "plus_scalar";
    case UnaryOp::TimesScalar:
      return "times_scalar";
    case UnaryOp::MinScalar:
      return "min_scalar";
    case UnaryOp::MaxScalar:
      return "max_scalar";
    case UnaryOp::DivByScalar:
      return "div_by_scalar";
    case UnaryOp::ScalarDiv:
      return "scalar_div";
    case UnaryOp::IsNonzero:
      return "is_nonzero";
  }
  return "?";
}

const char* to_string(Device d) {
  switch (d) {
    case Device::Auto:
      return "auto";
    case Device::Cpu:
      return "cpu";
    case Device::Cuda:
      return "cuda";
  }
  return "?";
}

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::Mxv:
      return "mxv";
    case OpKind::Vxm:
      return "vxm";
    case OpKind::Mxm:
      return "mxm";
    case OpKind::Sddmm:
      return "sddmm";
  }
  return "?";
}

const char* to_string(MxvKernel k) {
  switch (k) {
    case MxvKernel::Auto:
      return "auto";
    case MxvKernel::CpuRowBalanced:
      return "cpu_row_balanced";
    case MxvKernel::RowPerThread:
      return "row_per_thread";
    case MxvKernel::SubwarpPerRow:
      return "subwarp_per_row";
    case MxvKernel::NnzSplitSegmented:
      return "nnz_split_segmented";
    case MxvKernel::MergePath:
      return "merge_path";
    case MxvKernel::RowBlock:
      return "row_block";
    case MxvKernel::SlicedCoo:
      return "sliced_coo";
    case MxvKernel::ColumnSegmented:
      return "column_segmented";
    case MxvKernel::SellP:
      return "sell_p";
    case MxvKernel::PushScatter:
      return "push_scatter";
    case MxvKernel::Cusparse:
      return "cusparse";
    case MxvKernel::Generic:
      return "generic";
  }
  return "?";
}

const char* to_string(MxmKernel k) {
  switch (k) {
    case MxmKernel::Auto:
      return "auto";
    case MxmKernel::CpuRowBalanced:
      return "cpu_row_balanced";
    case MxmKernel::ParallelReduceVec:
      return "parallel_reduce_vec";
    case MxmKernel::RowCacheSeq:
      return "row_cache_seq";
    case MxmKernel::NnzBalancedSeq:
      return "nnz_balanced_seq";
    case MxmKernel::AsptTiled:
      return "aspt_tiled";
    case MxmKernel::Cusparse:
      return "cusparse";
    case MxmKernel::RowBlock:
      return "row_block";
    case MxmKernel::Spmv:
      return "spmv";
    case MxmKernel::Generic:
      return "generic";
  }
  return "?";
}

const char* to_string(SddmmKernel k) {
  switch (k) {
    case SddmmKernel::Auto:
      return "auto";
    case SddmmKernel::CpuRowBalanced:
      return "cpu_row_balanced";
    case SddmmKernel::Vct:
      return "vct";
    case SddmmKernel::Iir:
      return "iir";
    case SddmmKernel::Wmt:
      return "wmt";
    case SddmmKernel::AsptTiled:
      return "aspt_tiled";
    case SddmmKernel::Cusparse:
      return "cusparse";
    case SddmmKernel::Generic:
      return "generic";
  }
  return "?";
}

const char* to_string(SpgemmKernel k) {
  switch (k) {
    case SpgemmKernel::Auto:
      return "auto";
    case SpgemmKernel::GustavsonDense:
      return "gustavson_dense";
    case SpgemmKernel::GustavsonHash:
      return "gustavson_hash";
    case SpgemmKernel::MaskedGustavson:
      return "masked_gustavson";
    case SpgemmKernel::MaskedDot:
      return "masked_dot";
    case SpgemmKernel::CudaRowwise:
      return "cuda_rowwise";
    case SpgemmKernel::CudaMaskedDot:
      return "cuda_masked_dot";
  }
  return "?";
}

namespace {
template <class E, int N>
std::optional<E> parse_enum(const std::string& name) {
  for (int v = 0; v < N; ++v) {
    if (name == to_string(static_cast<E>(v))) return static_cast<E>(v);
  }
  return std::nullopt;
}
}  // namespace

std::optional<MxvKernel> parse_mxv_kernel(const std::string& name) {
  return parse_enum<MxvKernel, static_cast<int>(MxvKernel::Generic) + 1>(name);
}
std::optional<MxmKernel> parse_mxm_kernel(const std::string& name) {
  return parse_enum<MxmKernel, static_cast<int>(MxmKernel::Generic) + 1>(name);
}
std::optional<SddmmKernel> parse_sddmm_kernel(const std::string& name) {
  return parse_enum<SddmmKernel, static_cast<int>(SddmmKernel::Generic) + 1>(name);
}
std::optional<SpgemmKernel> parse_spgemm_kernel(const std::string& name) {
  return parse_enum<SpgemmKernel, static_cast<int>(SpgemmKernel::CudaMaskedDot) + 1>(name);
}
std::optional<Device> parse_device(const std::string& name) {
  return parse_enum<Device, static_cast<int>(Device::Cuda) + 1>(name);
}

std::string Plan::kernel_name() const {
  switch (op) {
    case OpKind::Mxv:
    case OpKind::Vxm:
      return to_string(mxv);
    case OpKind::Mxm:
      if (spgemm != SpgemmKernel::Auto) return to_string(spgemm);
      // An SpMM at N = 1 that runs as an mxv names the mxv kernel too.
      if (mxm == MxmKernel::Spmv && mxv != MxvKernel::Auto) {
        return std::string(to_string(mxm)) + "/" + to_string(mxv);
      }
      return to_string(mxm);
    case OpKind::Sddmm:
      return to_string(sddmm);
  }
  return "?";
}

const char* to_string(KernelForm f) {
  switch (f) {
    case KernelForm::Default:
      return "default";
    case KernelForm::RowBlockSmall:
      return "small";
    case KernelForm::RowBlockL2:
      return "l2";
    case KernelForm::RowBlockStreaming:
      return "streaming";
    case KernelForm::RowBlockWarp:
      return "warp";
    case KernelForm::BalancedGroup:
      return "group";
    case KernelForm::BalancedWarp:
      return "warp";
  }
  return "?";
}

std::string to_string(const LaunchParams& p) {
  std::string s;
  auto add = [&s](const char* name, std::int64_t v) {
    if (v) s += std::string(s.empty() ? "" : " ") + name + "=" + std::to_string(v);
  };
  add("block", p.block_threads);
  add("lanes", p.lanes_per_row);
  add("items", p.items_per_worker);
  add("tile", p.tile);
  if (p.form != KernelForm::Default) {
    s += std::string(s.empty() ? "" : " ") + "form=" + to_string(p.form);
  }
  add("vec", p.vec);
  return s;
}

std::string Plan::describe() const {
  std::string s = std::string("[spindle plan] ") + to_string(op) + " on " + to_string(device) +
                  ": " + kernel_name();
  if (const std::string p = to_string(params); !p.empty()) s += " " + p;
  s += forced ? " (forced)" : tuned ? " (tuned)" : "";
  if (!reason.empty()) s += " -- " + reason;
  return s;
}

bool plan_logging_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("SPINDLE_LOG");
    return v != nullptr && std::string(v).find("plan") != std::string::npos;
  }();
  return on;
}

void log_plan(const Plan& plan) {
  if (plan_logging_enabled()) std::fprintf(stderr, "%s\n", plan.describe().c_str());
}

}  // namespace spindle
