// SPDX-License-Identifier: Apache-2.0
/// @file structure.cpp
/// @brief Connected components (weak and strong), triangle counts and clustering, k-truss, core
/// numbers and Jaccard coefficients. Each call releases the GIL; the iterative ones install the
/// cancel hook, so Ctrl-C (and the caller's `cancel` callable) stops them between two rounds.
/// Results come back as numpy arrays that took over the engine's storage.

#include <nanobind/stl/string.h>

#include <utility>
#include <vector>

#include "python/src/bind.hpp"

namespace spindle::py {

void bind_structure(nb::module_& m) {
  m.def(
      "_components",
      [](const PyGraph& G, bool strong, const std::string& device, const std::string& mxv_kernel,
         const nb::object& cancel) {
        ComponentsOptions o;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        ComponentsResult r;
        {
          nb::gil_scoped_release release;
          r = std::visit(
              [&](const auto& g) {
                return strong ? strongly_connected_components(g, o)
                              : weakly_connected_components(g, o);
              },
              G.g);
        }
        nb::dict d;
        d["label"] = numpy_from(std::move(r.label));
        d["count"] = r.count;
        d["rounds"] = r.rounds;
        return d;
      },
      nb::arg("G"), nb::arg("strong"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_triangles",
      [](const PyGraph& G, bool per_vertex, bool clustering, const std::string& device,
         const std::string& kernel) {
        TriangleOptions o;
        o.per_vertex = per_vertex;
        o.clustering = clustering;
        o.device = parse_device_name(device);
        o.kernel = parse_spgemm(kernel);
        TriangleResult r;
        {
          nb::gil_scoped_release release;
          r = std::visit([&](const auto& g) { return triangles(g, o); }, G.g);
        }
        nb::dict d;
        d["total"] = r.total;
        d["per_vertex"] =
            per_vertex || clustering ? numpy_from(std::move(r.per_vertex)) : nb::none();
        d["clustering"] = clustering ? numpy_from(std::move(r.clustering)) : nb::none();
        d["edges"] = r.edges;
        d["degree_ordered"] = r.degree_ordered;
        return d;
      },
      nb::arg("G"), nb::arg("per_vertex"), nb::arg("clustering"), nb::arg("device"),
      nb::arg("kernel"));

  m.def(
      "_k_truss",
      [](const PyGraph& G, std::int64_t k, const std::string& device, const std::string& kernel,
         const nb::object& cancel) {
        KTrussOptions o;
        o.device = parse_device_name(device);
        o.kernel = parse_spgemm(kernel);
        o.cancel = cancel_hook(cancel.ptr());
        std::vector<std::int64_t> first;
        std::vector<std::int64_t> second;
        std::vector<std::int64_t> vertices;
        std::int64_t rounds = 0;
        {
          nb::gil_scoped_release release;
          std::visit(
              [&](const auto& g) {
                const auto r = k_truss(g, k, o);
                const auto& rp = r.truss.row_ptr();
                const auto& ci = r.truss.col_idx();
                for (std::int64_t u = 0; u < r.truss.rows(); ++u) {
                  for (auto e = rp[u]; e < rp[u + 1]; ++e) {
                    if (static_cast<std::int64_t>(ci[e]) > u) {
                      first.push_back(u);
                      second.push_back(ci[e]);
                    }
                  }
                }
                vertices.assign(r.vertices.begin(), r.vertices.end());
                rounds = r.rounds;
              },
              G.g);
        }
        nb::dict d;
        d["first"] = numpy_from(std::move(first));
        d["second"] = numpy_from(std::move(second));
        d["vertices"] = numpy_from(std::move(vertices));
        d["rounds"] = rounds;
        return d;
      },
      nb::arg("G"), nb::arg("k"), nb::arg("device"), nb::arg("kernel"), nb::arg("cancel").none());

  m.def(
      "_core_numbers",
      [](const PyGraph& G, bool directed, const std::string& device, const std::string& mxv_kernel,
         const nb::object& cancel) {
        KCoreOptions o;
        o.directed = directed;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        KCoreResult r;
        {
          nb::gil_scoped_release release;
          r = std::visit([&](const auto& g) { return core_numbers(g, o); }, G.g);
        }
        nb::dict d;
        d["core"] = numpy_from(std::move(r.core));
        d["max_core"] = r.max_core;
        d["steps"] = r.steps;
        return d;
      },
      nb::arg("G"), nb::arg("directed"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_jaccard",
      [](const PyGraph& G, const Array1& first, const Array1& second, std::int64_t batch,
         const std::string& device, const nb::object& cancel) {
        const std::vector<std::int64_t> u = to_std<std::int64_t>(first, "pairs");
        const std::vector<std::int64_t> v = to_std<std::int64_t>(second, "pairs");
        if (u.size() != v.size()) throw InvalidArgument("pairs: two columns of unequal length");
        std::vector<std::pair<std::int64_t, std::int64_t>> pairs(u.size());
        for (std::size_t i = 0; i < u.size(); ++i) pairs[i] = {u[i], v[i]};
        JaccardOptions o;
        o.batch = batch;
        o.device = parse_device_name(device);
        o.cancel = cancel_hook(cancel.ptr());
        std::vector<double> r;
        {
          nb::gil_scoped_release release;
          r = std::visit([&](const auto& g) { return jaccard_coefficient(g, pairs, o); }, G.g);
        }
        return numpy_from(std::move(r));
      },
      nb::arg("G"), nb::arg("first"), nb::arg("second"), nb::arg("batch"), nb::arg("device"),
      nb::arg("cancel").none());

  m.def(
      "_edge_pairs",
      [](const PyGraph& G) {
        std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
        {
          nb::gil_scoped_release release;
          pairs = std::visit([](const auto& g) { return edge_pairs(g); }, G.g);
        }
        std::vector<std::int64_t> u(pairs.size());
        std::vector<std::int64_t> v(pairs.size());
        for (std::size_t i = 0; i < pairs.size(); ++i) {
          u[i] = pairs[i].first;
          v[i] = pairs[i].second;
        }
        return nb::make_tuple(numpy_from(std::move(u)), numpy_from(std::move(v)));
      },
      nb::arg("G"));
}

}  // namespace spindle::py
