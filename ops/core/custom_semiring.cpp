// SPDX-License-Identifier: Apache-2.0
// User-defined semirings on CUDA (spindle/ops/custom_semiring.hpp): the registry of the generic
// kernels a program instantiated with SPINDLE_CUDA_SEMIRING, and the planned runs of the public
// operations over them. Host code in every build; without CUDA the runs throw Unsupported.
#include "spindle/ops/custom_semiring.hpp"

#include <map>
#include <mutex>
#include <string>

#include "ops/core/instantiate.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/generic/generic_entry.hpp"
#include "spindle/error.hpp"

namespace spindle::detail {
namespace {

struct Registered {
  std::string name;
  cuda::GenericKernels<float> f32;
  cuda::GenericKernels<double> f64;
  bool has_f32 = false;
  bool has_f64 = false;
};

std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::type_index, Registered>& registry() {
  static std::map<std::type_index, Registered> r;
  return r;
}

template <class T>
std::string not_registered(std::type_index key) {
  return std::string("a user-defined semiring (") + key.name() + ", value type " +
         to_string(value_kind_of<T>()) +
         ") has no CUDA kernels in this program: instantiate them in a .cu file with "
         "SPINDLE_CUDA_SEMIRING(YourSemiring) (spindle/cuda/semiring.cuh), or run it with "
         "Device::Cpu";
}

template <class T>
cuda::GenericSemiring<T> generic_of(const CustomSemiring<T>& s) {
  const cuda::GenericKernels<T>* k = find_cuda_semiring<T>(s.key);
  if (k == nullptr) throw Unsupported(not_registered<T>(s.key));
  cuda::GenericSemiring<T> g;
  g.kernels = k;
  g.identity = s.identity;
  g.reads_values = true;
  g.commutative = false;  // vxm runs the swapped kernel: mul(u(i), A(i,j))
  return g;
}

template <class T, class I, class V>
MxvInfo custom_mxv_info(OpKind op, const Mask& mask, Accum accum, bool input_full,
                        const Descriptor& desc) {
  return mxv_info_of(op, SemiringKind::Custom, value_kind_of<T>(), value_kind_of<V>(),
                     index_kind_of<I>(), mask, accum, input_full, desc);
}

template <class T, class I, class V>
MxmInfo custom_mxm_info(std::int64_t n, bool accum, const Descriptor& desc) {
  return mxm_info_of(SemiringKind::Custom, value_kind_of<T>(), value_kind_of<V>(),
                     index_kind_of<I>(), n, accum, desc);
}

template <class T, class I, class V>
SddmmInfo custom_sddmm_info(std::int64_t k, bool accum, const Descriptor& desc) {
  return sddmm_info_of(SemiringKind::Custom, value_kind_of<T>(), value_kind_of<V>(),
                       index_kind_of<I>(), k, accum, desc);
}

// The graph whose rows produce an mxv / vxm output.
template <class I, class V>
const Graph<I, V>& output_rows(const Graph<I, V>& A, bool transpose_a, bool vxm) {
  return transpose_a != vxm ? A.transpose() : A;
}

}  // namespace

template <class T>
void register_cuda_semiring(std::type_index key, const char* name,
                            const cuda::GenericKernels<T>& kernels) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  Registered& r = registry()[key];
  r.name = name != nullptr ? name : key.name();
  if constexpr (std::is_same_v<T, float>) {
    r.f32 = kernels;
    r.has_f32 = true;
  } else {
    r.f64 = kernels;
    r.has_f64 = true;
  }
}

template <class T>
const cuda::GenericKernels<T>* find_cuda_semiring(std::type_index key) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  const auto it = registry().find(key);
  if (it == registry().end()) return nullptr;
  if constexpr (std::is_same_v<T, float>) {
    return it->second.has_f32 ? &it->second.f32 : nullptr;
  } else {
    return it->second.has_f64 ? &it->second.f64 : nullptr;
  }
}

template <class T>
bool custom_runs_on_cuda(std::type_index key, Device requested) {
  switch (requested) {
    case Device::Cpu:
      return false;
    case Device::Cuda:
      (void)resolve_device(requested);  // Unsupported without CUDA, as for every operation
      return true;
    case Device::Auto:
      break;
  }
  return find_cuda_semiring<T>(key) != nullptr && resolve_device(Device::Auto) == Device::Cuda;
}

template <class T, class I, class V>
void custom_mxv(const CustomSemiring<T>& s, OpKind op, Vector<T>& w, const Mask& mask, Accum accum,
                const Graph<I, V>& A, const Vector<T>& u, const Descriptor& desc) {
  const bool vxm = op == OpKind::Vxm;
  const Graph<I, V>& M = output_rows(A, desc.transpose_a, vxm);
  const Plan plan =
      plan_mxv(M.stats(), custom_mxv_info<T, I, V>(op, mask, accum, u.is_full(), desc),
               Device::Cuda, device_caps(), desc);
  log_plan(plan);
  cuda::generic_mxv(plan, generic_of(s), w, mask, accum, M, u, desc.replace, vxm);
}

template <class T, class I, class V>
void custom_mxm(const CustomSemiring<T>& s, DenseMatrix<T>& C, Accum accum, const Graph<I, V>& A,
                const DenseMatrix<T>& B, const Vector<T>* bias, Unary<T> act,
                const Descriptor& desc) {
  const Graph<I, V>& G = desc.transpose_a ? A.transpose() : A;
  MxmInfo info = custom_mxm_info<T, I, V>(C.cols(), accum.enabled, desc);
  info.epilogue = bias != nullptr || act.op != UnaryOp::Identity;
  const Plan plan = plan_mxm(G.stats(), info, Device::Cuda, device_caps(), desc);
  log_plan(plan);
  cuda::generic_mxm(plan, generic_of(s), C, accum, A, B, bias, act, desc.transpose_a,
                    desc.transpose_b);
}

template <class T, class I, class V>
void custom_sddmm(const CustomSemiring<T>& s, std::vector<T>& out, Accum accum,
                  const Graph<I, V>& S, const DenseMatrix<T>& X, const DenseMatrix<T>& Y,
                  const Descriptor& desc) {
  const Plan plan = plan_sddmm(S.stats(), custom_sddmm_info<T, I, V>(X.cols(), accum.enabled, desc),
                               Device::Cuda, device_caps(), desc);
  log_plan(plan);
  cuda::generic_sddmm(plan, generic_of(s), out, accum, S, X, Y, desc.transpose_b);
}

template <class T, class I, class V>
Plan custom_plan(OpKind op, const Graph<I, V>& A, std::int64_t width, const Mask& mask, Accum accum,
                 const Descriptor& desc, const DeviceCaps* target) {
  const DeviceCaps& caps = target != nullptr ? *target : device_caps();
  const Device device = target != nullptr
                            ? resolve_target_device("plan_for_*", desc.device, *target)
                            : resolve_device(desc.device);
  switch (op) {
    case OpKind::Mxv:
    case OpKind::Vxm:
      return plan_mxv(output_rows(A, desc.transpose_a, op == OpKind::Vxm).stats(),
                      custom_mxv_info<T, I, V>(op, mask, accum, true, desc), device, caps, desc);
    case OpKind::Mxm: {
      const Graph<I, V>& G = desc.transpose_a ? A.transpose() : A;
      return plan_mxm(G.stats(), custom_mxm_info<T, I, V>(width, accum.enabled, desc), device, caps,
                      desc);
    }
    case OpKind::Sddmm:
      return plan_sddmm(A.stats(), custom_sddmm_info<T, I, V>(width, accum.enabled, desc), device,
                        caps, desc);
  }
  throw InvalidArgument("custom_plan: unknown operation");
}

template void register_cuda_semiring<float>(std::type_index, const char*,
                                            const cuda::GenericKernels<float>&);
template void register_cuda_semiring<double>(std::type_index, const char*,
                                             const cuda::GenericKernels<double>&);
template const cuda::GenericKernels<float>* find_cuda_semiring<float>(std::type_index);
template const cuda::GenericKernels<double>* find_cuda_semiring<double>(std::type_index);
template bool custom_runs_on_cuda<float>(std::type_index, Device);
template bool custom_runs_on_cuda<double>(std::type_index, Device);

#define SPINDLE_CUSTOM_ENTRY_(T, I, V)                                                             \
  template void custom_mxv<T, I, V>(const CustomSemiring<T>&, OpKind, Vector<T>&, const Mask&,     \
                                    Accum, const Graph<I, V>&, const Vector<T>&,                   \
                                    const Descriptor&);                                            \
  template void custom_mxm<T, I, V>(const CustomSemiring<T>&, DenseMatrix<T>&, Accum,              \
                                    const Graph<I, V>&, const DenseMatrix<T>&, const Vector<T>*,   \
                                    Unary<T>, const Descriptor&);                                  \
  template void custom_sddmm<T, I, V>(const CustomSemiring<T>&, std::vector<T>&, Accum,            \
                                      const Graph<I, V>&, const DenseMatrix<T>&,                   \
                                      const DenseMatrix<T>&, const Descriptor&);                   \
  template Plan custom_plan<T, I, V>(OpKind, const Graph<I, V>&, std::int64_t, const Mask&, Accum, \
                                     const Descriptor&, const DeviceCaps*);
SPINDLE_FOR_EACH_GRAPH_RESULT(SPINDLE_CUSTOM_ENTRY_)
#undef SPINDLE_CUSTOM_ENTRY_

}  // namespace spindle::detail
