// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file boost_graph.hpp
/// @brief Header-only adapter between Boost.Graph and spindle::Graph (needs Boost headers).
///
/// - from_boost_graph(): any Boost graph that models EdgeListGraph and VertexListGraph and has a
///   vertex_index property map (every `adjacency_list<..., vecS, ...>`, every
///   `compressed_sparse_row_graph`) -> Graph<I, V>. Undirected graphs give both directions of
///   every edge (a self-loop once). Values come from an optional readable edge property map
///   (`get(boost::edge_weight, g)`, `get(&Bundle::weight, g)`, ...), else 1.
/// - to_boost_csr(): Graph<I, V> -> `boost::compressed_sparse_row_graph<directedS, no_property,
///   BoostEdgeWeight<V>>` (or `no_property` edges for Pattern graphs), edges in the same order.

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/graph_traits.hpp>
#include <boost/property_map/property_map.hpp>

#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"
#include "spindle/graph.hpp"

namespace spindle {

/// Bundled edge property of the graphs to_boost_csr() builds; read it with
/// `get(&BoostEdgeWeight<V>::weight, g)` or `g[e].weight`.
template <class W>
struct BoostEdgeWeight {
  W weight{};
};

/// The Boost CSR graph type to_boost_csr() returns for value type V.
template <class V>
using BoostCsrGraph = boost::compressed_sparse_row_graph<
    boost::directedS, boost::no_property,
    std::conditional_t<is_pattern_v<V>, boost::no_property, BoostEdgeWeight<V>>>;

namespace detail {

struct UnitWeight {};

template <class I, class V, class BGraph, class WeightMap>
Graph<I, V> from_boost_impl(const BGraph& g, const WeightMap* weight, const BuildOptions& opts) {
  // Unqualified calls on purpose: argument-dependent lookup at instantiation finds the
  // overloads of graph headers included after this one (adjacency_list.hpp, ...).
  using Traits = boost::graph_traits<BGraph>;
  const auto nv = num_vertices(g);
  const I n = checked_cast<I>(static_cast<std::uint64_t>(nv), "Boost graph vertex count");
  const bool undirected =
      std::is_convertible<typename Traits::directed_category, boost::undirected_tag>::value;
  const auto index = get(boost::vertex_index, g);
  Coo<I> coo;
  coo.rows = n;
  coo.cols = n;
  const auto ne = static_cast<std::size_t>(num_edges(g));
  coo.row.reserve(undirected ? 2 * ne : ne);
  coo.col.reserve(undirected ? 2 * ne : ne);
  constexpr bool has_weight = !std::is_same<WeightMap, UnitWeight>::value;
  if (has_weight) coo.val.reserve(undirected ? 2 * ne : ne);
  typename Traits::edge_iterator it, end;
  for (boost::tie(it, end) = edges(g); it != end; ++it) {
    const I s = static_cast<I>(get(index, source(*it, g)));
    const I t = static_cast<I>(get(index, target(*it, g)));
    double w = 1.0;
    if constexpr (has_weight) w = static_cast<double>(get(*weight, *it));
    coo.row.push_back(s);
    coo.col.push_back(t);
    if constexpr (has_weight) coo.val.push_back(w);
    if (undirected && s != t) {
      coo.row.push_back(t);
      coo.col.push_back(s);
      if constexpr (has_weight) coo.val.push_back(w);
    }
  }
  return build_graph<I, V>(std::move(coo), opts);
}

}  // namespace detail

/// Converts a Boost graph with edge weights to a Graph.
/// @param g the Boost graph (directed, bidirectional or undirected).
/// @param weight readable property map from edge descriptors to a number (converted to V;
///        ignored for V = Pattern).
/// @param options duplicate / self-loop policies for build_graph() (parallel edges of a
///        multigraph are duplicates: summed by default for weighted V).
/// @throws InvalidArgument when the vertex count does not fit I; whatever build_graph() throws.
template <class I, class V, class BGraph, class WeightMap>
Graph<I, V> from_boost_graph(const BGraph& g, const WeightMap& weight,
                             const BuildOptions& options = {}) {
  return detail::from_boost_impl<I, V>(g, &weight, options);
}

/// Converts a Boost graph without weights to a Graph (every value 1).
template <class I, class V, class BGraph>
Graph<I, V> from_boost_graph(const BGraph& g, const BuildOptions& options = {}) {
  return detail::from_boost_impl<I, V, BGraph, detail::UnitWeight>(g, nullptr, options);
}

/// Converts a square Graph to a directed Boost CSR graph with the same vertices, edges (in row
/// order) and values (BoostEdgeWeight<V>::weight; none for Pattern graphs).
/// @throws InvalidArgument when the graph is not square (Boost graphs have one vertex set).
template <class I, class V>
BoostCsrGraph<V> to_boost_csr(const Graph<I, V>& graph) {
  if (!graph.is_square()) {
    throw InvalidArgument("to_boost_csr: a Boost graph needs a square matrix, got " +
                          std::to_string(graph.rows()) + " x " + std::to_string(graph.cols()));
  }
  using Out = BoostCsrGraph<V>;
  using Vtx = typename boost::graph_traits<Out>::vertex_descriptor;
  const auto& rp = graph.row_ptr();
  const auto& ci = graph.col_idx();
  std::vector<std::pair<Vtx, Vtx>> edges;
  edges.reserve(ci.size());
  for (I i = 0; i < graph.rows(); ++i) {
    for (I k = rp[i]; k < rp[i + 1]; ++k) {
      edges.emplace_back(static_cast<Vtx>(i), static_cast<Vtx>(ci[k]));
    }
  }
  const auto n = static_cast<typename Out::vertices_size_type>(graph.rows());
  if constexpr (is_pattern_v<V>) {
    return Out(boost::edges_are_sorted, edges.begin(), edges.end(), n);
  } else {
    std::vector<BoostEdgeWeight<V>> props(graph.values().size());
    for (std::size_t k = 0; k < props.size(); ++k) props[k].weight = graph.values()[k];
    return Out(boost::edges_are_sorted, edges.begin(), edges.end(), props.begin(), n);
  }
}

}  // namespace spindle
