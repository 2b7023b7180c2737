// SPDX-License-Identifier: Apache-2.0
#include "explain.hpp"

#include <type_traits>

#include "common.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops.hpp"
// Only the GCN forced-kernel warning below reaches the planner's own functions (it plans GCN's
// normalized adjacency, a valued graph, from the loaded graph's statistics); --explain and the
// vxm warning use the public planning entry points (plan_for_*, with a target DeviceCaps for
// --explain).
#include "ops/core/planner.hpp"
#include "ops/core/vxm_push.hpp"

namespace spindle::cli {

namespace {

template <class T, class G>
std::vector<ExplainRow> plan_rows_as(const G& A, const DeviceCaps& target, const Descriptor& desc,
                                     std::int64_t width) {
  using S = semiring::plus_times<T>;
  const std::string tname = std::is_same_v<T, float> ? "<float>" : "<double>";
  std::vector<ExplainRow> rows;
  rows.push_back({"mxv plus_times" + tname, "power-iteration",
                  plan_for_mxv<S>(A, Mask{}, Accum::none(), desc, target)});
  // vxm pulls over the rows of A^T: the transpose's row statistics decide.
  rows.push_back({"vxm plus_times" + tname, "pagerank, bfs, sssp, centrality",
                  plan_for_vxm<S>(A, Mask{}, Accum::none(), desc, target)});
  rows.push_back({"mxm plus_times" + tname + " N=" + std::to_string(width), "gcn",
                  plan_for_mxm<S>(A, width, desc, target)});
  rows.push_back({"sddmm plus_times" + tname + " K=" + std::to_string(width), "(library)",
                  plan_for_sddmm<S>(A, width, desc, target)});
  return rows;
}

// The CUDA rows plan in float (what the GPU algorithms run), the CPU rows in double.
template <class G>
std::vector<ExplainRow> plan_rows(const G& A, Device device, const DeviceCaps& target,
                                  const Descriptor& desc_in, std::int64_t width) {
  Descriptor desc = desc_in;
  desc.device = device;
  return device == Device::Cuda ? plan_rows_as<float>(A, target, desc, width)
                                : plan_rows_as<double>(A, target, desc, width);
}

}  // namespace

std::vector<ExplainDevice> explain_plans(const Input& in, const Descriptor& desc,
                                         std::int64_t width) {
  std::vector<ExplainDevice> out;
  ExplainDevice cpu;
  cpu.device = Device::Cpu;
  cpu.caps =
      "OpenMP, up to " + std::to_string(cpu_threads()) + " threads (" + cpu_threads_basis() + ")";
  ExplainDevice cuda;
  cuda.device = Device::Cuda;
  const bool real_gpu = cuda_available();
  const DeviceCaps caps = real_gpu ? device_caps() : reference_hopper_caps();
  cuda.caps = real_gpu ? caps.name + " (detected)"
                       : "no GPU here: planned for a " + caps.name.substr(0, caps.name.find(" (")) +
                             " (reference_hopper_caps)";
  visit_graph(in.graph, [&](const auto& g) {
    cpu.rows = plan_rows(g, Device::Cpu, DeviceCaps{}, desc, width);
    cuda.rows = plan_rows(g, Device::Cuda, caps, desc, width);
  });
  out.push_back(std::move(cpu));
  out.push_back(std::move(cuda));
  return out;
}

void warn_if_forced_kernel_falls_back(const Input& in, const Execution& ex, SemiringKind semiring) {
  if (ex.desc.mxv_kernel == MxvKernel::Auto) return;
  // A push runs on CUDA wherever the monoid allows it (ops/core/vxm_push.hpp); asking the planner
  // below would build the transpose the push is there to avoid.
  if (ex.desc.mxv_kernel == MxvKernel::PushScatter && ex.device == Device::Cuda &&
      detail::push_monoid(semiring) != detail::PushMonoid::None) {
    return;
  }
  Descriptor desc = ex.desc;
  desc.device = ex.device;
  visit_graph(in.graph, [&](const auto& g) {
    auto plan_with = [&](auto s) {
      return plan_for_vxm<decltype(s)>(g, Mask{}, Accum::none(), desc);
    };
    const Plan plan = ex.use_double ? visit_semiring<double>(semiring, plan_with)
                                    : visit_semiring<float>(semiring, plan_with);
    if (!plan.forced) warn("--kernel %s: %s", to_string(ex.desc.mxv_kernel), plan.reason.c_str());
  });
}

void warn_if_forced_mxm_kernel_falls_back(const Input& in, const Execution& ex, MxmKernel kernel,
                                          std::int64_t width) {
  if (kernel == MxmKernel::Auto) return;
  const DeviceCaps caps = ex.device == Device::Cuda ? device_caps() : DeviceCaps{};
  Descriptor desc = ex.desc;
  desc.mxm_kernel = kernel;
  visit_graph(in.graph, [&](const auto& g) {
    using G = std::decay_t<decltype(g)>;
    detail::MxmInfo mm;
    mm.value = ex.use_double ? ValueKind::Double : ValueKind::Float;
    mm.matrix_value = ex.use_double ? ValueKind::Double : ValueKind::Float;  // Â is valued
    mm.index = index_kind_of<typename G::index_type>();
    mm.n = width;
    const Plan plan = detail::plan_mxm(g.stats(), mm, ex.device, caps, desc);
    if (!plan.forced) warn("--kernel %s: %s", to_string(kernel), plan.reason.c_str());
  });
}

std::string explain_text(const std::vector<ExplainDevice>& devices) {
  std::string out = "planner (what each call would run; SPINDLE_LOG=plan logs live decisions):\n";
  for (const auto& d : devices) {
    out += std::string("  ") + to_string(d.device) + ": " + d.caps + "\n";
    for (const auto& r : d.rows) {
      std::string kernel = r.plan.kernel_name();
      std::string params = to_string(r.plan.params);
      if (!params.empty()) kernel += " (" + params + ")";
      if (r.plan.forced) kernel += " [forced]";
      char line[256];
      std::snprintf(line, sizeof line, "    %-30s -> %s\n", r.call.c_str(), kernel.c_str());
      out += line;
      out += "      why: " + r.plan.reason + "\n";
    }
  }
  return out;
}

void explain_json(JsonWriter& w, const std::vector<ExplainDevice>& devices) {
  w.key("plans");
  w.begin_array();
  for (const auto& d : devices) {
    for (const auto& r : d.rows) {
      w.begin_object();
      w.field("device", to_string(d.device));
      w.field("assumes", d.caps);
      w.field("call", r.call);
      w.field("op", to_string(r.plan.op));
      w.field("kernel", r.plan.kernel_name());
      w.field("forced", r.plan.forced);
      w.key("params");
      w.begin_object(true);
      w.field("block_threads", r.plan.params.block_threads);
      w.field("lanes_per_row", r.plan.params.lanes_per_row);
      w.field("items_per_worker", r.plan.params.items_per_worker);
      w.field("tile", r.plan.params.tile);
      w.field("form", to_string(r.plan.params.form));
      w.field("vec", r.plan.params.vec);
      w.end_object();
      w.field("reason", r.plan.reason);
      w.end_object();
    }
  }
  w.end_array();
}

}  // namespace spindle::cli
