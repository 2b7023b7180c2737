// SPDX-License-Identifier: Apache-2.0
/// @file algorithms.cpp
/// @brief PageRank, power iteration, BFS, SSSP and GCN inference. Each call releases the GIL and
/// installs the algorithm's cancel hook, so Ctrl-C (and the caller's `cancel` callable) stops it
/// between two iterations; results come back as numpy arrays that took over the engine's storage.

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>

#include "python/src/bind.hpp"

namespace spindle::py {
namespace {

PageRankPreset parse_preset(const std::string& name) {
  if (name == "default") return PageRankPreset::Default;
  if (name == "networkx") return PageRankPreset::NetworkX;
  if (name == "gap") return PageRankPreset::Gap;
  if (name == "boost") return PageRankPreset::Boost;
  throw InvalidArgument("unknown PageRank preset '" + name +
                        "' (known: default, networkx, gap, boost)");
}

GcnOrder parse_order(const std::string& name) {
  if (name == "auto") return GcnOrder::Auto;
  if (name == "aggregate_first") return GcnOrder::AggregateFirst;
  if (name == "transform_first") return GcnOrder::TransformFirst;
  throw InvalidArgument("unknown GCN order '" + name +
                        "' (known: auto, aggregate_first, transform_first)");
}

// The full vector's values, moved out into a numpy array.
template <class T>
nb::object take(Vector<T>& v) {
  return numpy_from(std::move(v.values()));
}

}  // namespace

void bind_algorithms(nb::module_& m) {
  m.def(
      "_pagerank",
      [](const PyGraph& G, const std::string& dtype, double alpha, double tol, int max_iter,
         const std::optional<Array1>& personalization, bool weighted, const std::string& preset,
         const std::string& device, const std::string& mxv_kernel, bool tune,
         const std::string& plan_cache, const nb::object& cancel, const std::string& method) {
        PageRankOptions o;
        if (method == "anderson") {
          o.method = PageRankMethod::Anderson;
        } else if (method != "power") {
          throw InvalidArgument("unknown PageRank method '" + method +
                                "' (use 'power' or 'anderson')");
        }
        o.alpha = alpha;
        o.tol = tol;
        o.max_iter = max_iter;
        if (personalization)
          o.personalization = to_std<double>(*personalization, "personalization");
        o.weighted = weighted;
        o.preset = parse_preset(preset);
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.tune = tune;
        o.plan_cache = plan_cache;
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          PageRankResult<T> r;
          {
            nb::gil_scoped_release release;
            r = std::visit([&](const auto& g) { return pagerank<T>(g, o); }, G.g);
          }
          nb::dict d;
          d["ranks"] = take(r.ranks);
          d["iterations"] = r.iterations;
          d["residual"] = r.residual;
          d["converged"] = r.converged;
          d["tuned"] = r.tuned;
          return d;
        });
      },
      nb::arg("G"), nb::arg("dtype"), nb::arg("alpha"), nb::arg("tol"), nb::arg("max_iter"),
      nb::arg("personalization").none(), nb::arg("weighted"), nb::arg("preset"), nb::arg("device"),
      nb::arg("mxv_kernel"), nb::arg("tune"), nb::arg("plan_cache"), nb::arg("cancel").none(),
      nb::arg("method") = "power");

  m.def(
      "_power_iteration",
      [](const PyGraph& G, const std::string& dtype, double tol, int max_iter,
         std::optional<double> shift, bool weighted, bool centrality, const std::string& device,
         const std::string& mxv_kernel, const nb::object& cancel) {
        PowerIterationOptions o;
        o.tol = tol;
        o.max_iter = max_iter;
        o.shift = shift;
        o.weighted = weighted;
        o.centrality = centrality;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          PowerIterationResult<T> r;
          {
            nb::gil_scoped_release release;
            r = std::visit([&](const auto& g) { return power_iteration<T>(g, o); }, G.g);
          }
          nb::dict d;
          d["vector"] = take(r.vector);
          d["eigenvalue"] = r.eigenvalue;
          d["iterations"] = r.iterations;
          d["residual"] = r.residual;
          d["last_change"] = r.last_change;
          d["converged"] = r.converged;
          d["vanished"] = r.vanished;
          return d;
        });
      },
      nb::arg("G"), nb::arg("dtype"), nb::arg("tol"), nb::arg("max_iter"), nb::arg("shift").none(),
      nb::arg("weighted"), nb::arg("centrality"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_bfs",
      [](const PyGraph& G, std::int64_t source, bool parents, const std::string& device,
         const std::string& mxv_kernel, const nb::object& cancel) {
        BfsOptions o;
        o.parents = parents;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        BfsResult r;
        {
          nb::gil_scoped_release release;
          r = std::visit([&](const auto& g) { return bfs(g, source, o); }, G.g);
        }
        nb::dict d;
        d["level"] = numpy_from(std::move(r.level));
        d["parent"] = parents ? numpy_from(std::move(r.parent)) : nb::none();
        d["depth"] = r.depth;
        d["reached"] = r.reached;
        return d;
      },
      nb::arg("G"), nb::arg("source"), nb::arg("parents"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_sssp",
      [](const PyGraph& G, std::int64_t source, const std::string& dtype, const std::string& device,
         const std::string& mxv_kernel, const nb::object& cancel) {
        SsspOptions o;
        o.device = parse_device_name(device);
        o.mxv_kernel = parse_mxv(mxv_kernel);
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) {
          using T = decltype(t);
          SsspResult<T> r;
          {
            nb::gil_scoped_release release;
            r = std::visit([&](const auto& g) { return sssp<T>(g, source, o); }, G.g);
          }
          nb::dict d;
          d["distance"] = take(r.distance);
          d["rounds"] = r.rounds;
          d["reached"] = r.reached;
          return d;
        });
      },
      nb::arg("G"), nb::arg("source"), nb::arg("dtype"), nb::arg("device"), nb::arg("mxv_kernel"),
      nb::arg("cancel").none());

  m.def(
      "_gcn",
      [](const PyGraph& G, const nb::handle& X, const std::vector<Array2>& weights,
         const std::vector<Array1>& biases, const std::string& dtype, const std::string& order,
         bool weighted, bool in_edges, const std::string& device, const std::string& mxm_kernel,
         bool tune, bool fuse, bool fuse_dense, const nb::object& cancel) {
        GcnOptions o;
        o.order = parse_order(order);
        o.weighted = weighted;
        o.in_edges = in_edges;
        o.device = parse_device_name(device);
        o.mxm_kernel = parse_mxm(mxm_kernel);
        o.tune = tune;
        o.fuse = fuse;
        o.fuse_dense = fuse_dense;
        o.cancel = cancel_hook(cancel.ptr());
        return visit_real(dtype, [&](auto t) -> nb::object {
          using T = decltype(t);
          GcnModel<T> model;
          for (const Array2& w : weights) model.weights.push_back(to_dense<T>(w, "weights"));
          for (const Array1& b : biases) model.biases.emplace_back(to_std<T>(b, "biases"));
          const DenseMatrix<T> x = dense_arg<T>(X, "features");
          DenseMatrix<T> out;
          {
            nb::gil_scoped_release release;
            out = std::visit([&](const auto& g) { return gcn_inference(g, x, model, o); }, G.g);
          }
          return dense_result(std::move(out), is_capsule(X));
        });
      },
      nb::arg("G"), nb::arg("X"), nb::arg("weights"), nb::arg("biases"), nb::arg("dtype"),
      nb::arg("order"), nb::arg("weighted"), nb::arg("in_edges"), nb::arg("device"),
      nb::arg("mxm_kernel"), nb::arg("tune"), nb::arg("fuse"), nb::arg("fuse_dense"),
      nb::arg("cancel").none());
}

}  // namespace spindle::py
