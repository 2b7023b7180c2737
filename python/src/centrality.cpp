// SPDX-License-Identifier: Apache-2.0
/// @file centrality.cpp
/// @brief HITS, Katz centrality and betweenness centrality. Each call releases the GIL and
/// installs the algorithm's cancel hook, so Ctrl-C (and the caller's `cancel` callable) stops it
/// between two iterations (betweenness: two BFS or dependency levels); results come back as
/// numpy arrays that took over the engine's storage.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <utility>
#include <vector>

#include "python/src/bind.hpp"

namespace spindle::py {

void bind_centrality(nb::module_& m) {
  m.def(
      "_hits",
      [](const PyGraph& G, const std::string& dtype, int max_iter, double tol,
         const std::optional<Array1>& nstart, bool normalized, bool weighted,
         const std::string& device, const std::string& mxv_kernel, const nb::object& cancel) {
        HitsOptions o;
        o.max_iter = max_iter;
        o.tol = tol;
        if (nstart) o.nstart = to_std<double>(*nstart, "nstart");
        o.normalized = normalized;
        o.weighted = weighted;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          HitsResult<T> r;
          {
            nb::gil_scoped_release release;
            r = std::visit([&](const auto& g) { return hits<T>(g, o); }, G.g);
          }
          nb::dict d;
          d["hubs"] = numpy_from(std::move(r.hubs.values()));
          d["authorities"] = numpy_from(std::move(r.authorities.values()));
          d["iterations"] = r.iterations;
          d["residual"] = r.residual;
          d["converged"] = r.converged;
          return d;
        });
      },
      nb::arg("G"), nb::arg("dtype"), nb::arg("max_iter"), nb::arg("tol"), nb::arg("nstart").none(),
      nb::arg("normalized"), nb::arg("weighted"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_katz",
      [](const PyGraph& G, const std::string& dtype, double alpha, double beta,
         const std::optional<Array1>& beta_per_vertex, int max_iter, double tol,
         const std::optional<Array1>& nstart, bool normalized, bool weighted,
         const std::string& device, const std::string& mxv_kernel, const nb::object& cancel) {
        KatzOptions o;
        o.alpha = alpha;
        o.beta = beta;
        if (beta_per_vertex) o.beta_per_vertex = to_std<double>(*beta_per_vertex, "beta");
        o.max_iter = max_iter;
        o.tol = tol;
        if (nstart) o.nstart = to_std<double>(*nstart, "nstart");
        o.normalized = normalized;
        o.weighted = weighted;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          KatzResult<T> r;
          {
            nb::gil_scoped_release release;
            r = std::visit([&](const auto& g) { return katz_centrality<T>(g, o); }, G.g);
          }
          nb::dict d;
          d["centrality"] = numpy_from(std::move(r.centrality.values()));
          d["iterations"] = r.iterations;
          d["residual"] = r.residual;
          d["converged"] = r.converged;
          return d;
        });
      },
      nb::arg("G"), nb::arg("dtype"), nb::arg("alpha"), nb::arg("beta"),
      nb::arg("beta_per_vertex").none(), nb::arg("max_iter"), nb::arg("tol"),
      nb::arg("nstart").none(), nb::arg("normalized"), nb::arg("weighted"), nb::arg("device"),
      nb::arg("mxv_kernel"), nb::arg("cancel").none());

  m.def(
      "_betweenness",
      [](const PyGraph& G, std::int64_t k, std::uint64_t seed, const std::optional<Array1>& sources,
         bool normalized, bool endpoints, bool directed, std::int64_t batch,
         const std::string& device, const std::string& mxm_kernel, const nb::object& cancel) {
        BetweennessOptions o;
        o.k = k;
        o.seed = seed;
        if (sources) o.sources = to_std<std::int64_t>(*sources, "sources");
        o.normalized = normalized;
        o.endpoints = endpoints;
        o.directed = directed;
        o.batch = batch;
        o.device = parse_device_name(device);
        o.mxm_kernel = parse_mxm(mxm_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        BetweennessResult r;
        {
          nb::gil_scoped_release release;
          r = std::visit([&](const auto& g) { return betweenness_centrality(g, o); }, G.g);
        }
        nb::dict d;
        d["centrality"] = numpy_from(std::move(r.centrality));
        d["sources"] = numpy_from(std::move(r.sources));
        d["batches"] = r.batches;
        return d;
      },
      nb::arg("G"), nb::arg("k"), nb::arg("seed"), nb::arg("sources").none(), nb::arg("normalized"),
      nb::arg("endpoints"), nb::arg("directed"), nb::arg("batch"), nb::arg("device"),
      nb::arg("mxm_kernel"), nb::arg("cancel").none());
}

}  // namespace spindle::py
