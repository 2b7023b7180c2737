// SPDX-License-Identifier: Apache-2.0
/// @file module.cpp
/// @brief The `spindle._core` extension: the engine's types, operations, loaders and algorithms
/// for the `spindle` Python package (python/spindle), which adds the conversions and docstrings.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

nb::dict params_dict(const LaunchParams& p) {
  nb::dict d;
  d["block_threads"] = p.block_threads;
  d["lanes_per_row"] = p.lanes_per_row;
  d["items_per_worker"] = p.items_per_worker;
  d["tile"] = p.tile;
  // The form the planner chose ("" for a kernel with one form) and the fragment width.
  d["form"] = p.form == KernelForm::Default ? std::string() : std::string(to_string(p.form));
  d["vec"] = p.vec;
  return d;
}

}  // namespace

void bind_types(nb::module_& m) {
  nb::class_<Descriptor>(m, "Descriptor",
                         "Per-call modifiers of an operation (GraphBLAS's descriptor).\n\n"
                         "Fields: transpose_a (use A^T), transpose_b (use B^T / Y^T), replace\n"
                         "(entries the mask does not select are removed), device ('auto', 'cpu',\n"
                         "'cuda'), and mxv_kernel / mxm_kernel / sddmm_kernel to force a kernel\n"
                         "by name ('auto': the planner decides; a kernel that cannot run the call\n"
                         "falls back to the planner's choice).")
      .def(
          "__init__",
          [](Descriptor* d, bool transpose_a, bool transpose_b, bool replace,
             const std::string& device, const std::string& mxv_kernel,
             const std::string& mxm_kernel, const std::string& sddmm_kernel) {
            new (d) Descriptor();
            d->transpose_a = transpose_a;
            d->transpose_b = transpose_b;
            d->replace = replace;
            d->device = parse_device_name(device);
            d->mxv_kernel = parse_mxv(mxv_kernel);
            d->mxm_kernel = parse_mxm(mxm_kernel);
            d->sddmm_kernel = parse_sddmm(sddmm_kernel);
          },
          nb::kw_only(), nb::arg("transpose_a") = false, nb::arg("transpose_b") = false,
          nb::arg("replace") = false, nb::arg("device") = "auto", nb::arg("mxv_kernel") = "auto",
          nb::arg("mxm_kernel") = "auto", nb::arg("sddmm_kernel") = "auto")
      .def_rw("transpose_a", &Descriptor::transpose_a, "Use A^T instead of A.")
      .def_rw("transpose_b", &Descriptor::transpose_b, "Use B^T (mxm) or Y^T (sddmm).")
      .def_rw("replace", &Descriptor::replace,
              "Remove the output entries the mask does not select (else they are kept).")
      .def_prop_rw(
          "device", [](const Descriptor& d) { return std::string(to_string(d.device)); },
          [](Descriptor& d, const std::string& v) { d.device = parse_device_name(v); },
          "Where to run: 'auto' (CUDA when available), 'cpu' or 'cuda'.")
      .def_prop_rw(
          "mxv_kernel", [](const Descriptor& d) { return std::string(to_string(d.mxv_kernel)); },
          [](Descriptor& d, const std::string& v) { d.mxv_kernel = parse_mxv(v); },
          "Forced mxv/vxm kernel by name, or 'auto'.")
      .def_prop_rw(
          "mxm_kernel", [](const Descriptor& d) { return std::string(to_string(d.mxm_kernel)); },
          [](Descriptor& d, const std::string& v) { d.mxm_kernel = parse_mxm(v); },
          "Forced mxm (SpMM) kernel by name, or 'auto'.")
      .def_prop_rw(
          "sddmm_kernel",
          [](const Descriptor& d) { return std::string(to_string(d.sddmm_kernel)); },
          [](Descriptor& d, const std::string& v) { d.sddmm_kernel = parse_sddmm(v); },
          "Forced sddmm kernel by name, or 'auto'.")
      .def("__repr__", [](const Descriptor& d) {
        return std::string("Descriptor(transpose_a=") + (d.transpose_a ? "True" : "False") +
               ", transpose_b=" + (d.transpose_b ? "True" : "False") +
               ", replace=" + (d.replace ? "True" : "False") + ", device='" + to_string(d.device) +
               "', mxv_kernel='" + to_string(d.mxv_kernel) + "', mxm_kernel='" +
               to_string(d.mxm_kernel) + "', sddmm_kernel='" + to_string(d.sddmm_kernel) + "')";
      });

  nb::class_<Plan>(m, "Plan",
                   "The planner's decision for one call: which kernel runs where, with which\n"
                   "launch parameters, and why (plan_for_mxv / vxm / mxm / sddmm return it).")
      .def_prop_ro(
          "op", [](const Plan& p) { return std::string(to_string(p.op)); },
          "The operation: 'mxv', 'vxm', 'mxm' or 'sddmm'.")
      .def_prop_ro(
          "device", [](const Plan& p) { return std::string(to_string(p.device)); },
          "Where it runs: 'cpu' or 'cuda'.")
      .def_prop_ro("kernel", &Plan::kernel_name, "The kernel's name (as --kernel takes it).")
      .def_prop_ro(
          "params", [](const Plan& p) { return params_dict(p.params); },
          "Launch parameters (0: the kernel's default).")
      .def_ro("forced", &Plan::forced, "Chosen through the descriptor, not by the rules.")
      .def_ro("tuned", &Plan::tuned, "Chosen by timing candidates (tuning mode).")
      .def_ro("reason", &Plan::reason, "One line: why this kernel.")
      .def("describe", &Plan::describe, "One line, as SPINDLE_LOG=plan prints it.")
      .def("__repr__", [](const Plan& p) { return "<spindle.Plan " + p.describe() + ">"; })
      .def("__str__", &Plan::describe);

  nb::class_<DeviceCaps>(m, "DeviceCaps",
                         "Capabilities of a CUDA device, as the planner sees them (all zero "
                         "when there is none). DeviceCaps() is 'no GPU'.")
      .def(nb::init<>())
      .def_ro("available", &DeviceCaps::available, "True for a CUDA device.")
      .def_ro("name", &DeviceCaps::name, "The device's name.")
      .def_ro("cc_major", &DeviceCaps::cc_major, "Compute capability, major.")
      .def_ro("cc_minor", &DeviceCaps::cc_minor, "Compute capability, minor.")
      .def_ro("sm_count", &DeviceCaps::sm_count, "Streaming multiprocessors.")
      .def_ro("max_threads_per_sm", &DeviceCaps::max_threads_per_sm, "Resident threads per SM.")
      .def_ro("l2_bytes", &DeviceCaps::l2_bytes, "L2 cache size in bytes.")
      .def_ro("smem_per_block_optin", &DeviceCaps::smem_per_block_optin,
              "Shared memory per block (opt-in) in bytes.")
      .def_ro("global_mem_bytes", &DeviceCaps::global_mem_bytes, "Device memory in bytes.")
      .def_ro("peak_bandwidth", &DeviceCaps::peak_bandwidth, "Peak DRAM bandwidth, bytes/s.")
      .def("__repr__", [](const DeviceCaps& c) {
        return c.available ? "<spindle.DeviceCaps " + c.name + " sm_" + std::to_string(c.cc_major) +
                                 std::to_string(c.cc_minor) + ">"
                           : std::string("<spindle.DeviceCaps: no CUDA device>");
      });

  m.def(
      "version", [] { return std::string(spindle::version()); }, "The engine's version string.");
  m.def("built_with_cuda", &built_with_cuda, "True when this build has the CUDA backend.");
  m.def("cuda_available", &cuda_available,
        "True when built with CUDA and a CUDA device is visible.");
  m.def(
      "_engine_stream", [] { return static_cast<std::uint64_t>(engine_stream()); },
      "The CUDA stream every Spindle operation runs on, as an integer (the `stream` a DLPack\n"
      "producer is asked to make its data ready on). Raises spindle.Unsupported without CUDA.");
  m.def("device_caps", &device_caps, nb::rv_policy::copy,
        "Capabilities of the current CUDA device (DeviceCaps; available is False without one).");
  m.def("reference_hopper_caps", &reference_hopper_caps,
        "A typical H100 SXM, for what-if planning on machines without a GPU.");
  m.def("cpu_threads", &cpu_threads, "OpenMP threads the CPU backend uses.");
  m.def("release_device_resources", &release_device_resources,
        "Frees the CUDA scratch memory and library handles Spindle keeps between calls.");
  m.def(
      "transfer_stats",
      [] {
        const TransferStats s = transfer_stats();
        nb::dict d;
        d["uploads"] = s.uploads;
        d["upload_bytes"] = s.upload_bytes;
        d["downloads"] = s.downloads;
        d["download_bytes"] = s.download_bytes;
        d["scalar_reads"] = s.scalar_reads;
        d["graph_uploads"] = s.graph_uploads;
        d["graph_upload_bytes"] = s.graph_upload_bytes;
        return d;
      },
      "Host <-> device traffic of vectors, matrices and graphs since the last reset, as a dict "
      "(all zero without CUDA).");
  m.def("reset_transfer_stats", &reset_transfer_stats, "Resets transfer_stats() to zero.");
}

}  // namespace spindle::py

NB_MODULE(_core, m) {
  m.doc() = "Spindle's compiled engine (use the `spindle` package, not this module directly).";
  spindle::py::bind_errors(m);
  spindle::py::bind_types(m);
  spindle::py::bind_graph(m);
  spindle::py::bind_vector(m);
  spindle::py::bind_ops(m);
  spindle::py::bind_algorithms(m);
  spindle::py::bind_structure(m);
  spindle::py::bind_centrality(m);
  spindle::py::bind_networkx(m);
}
