// SPDX-License-Identifier: Apache-2.0
#pragma once
/// @file components.hpp
/// @brief Weakly connected components (FastSV-style min-label hooking and shortcutting) and
/// strongly connected components (trimming and forward/backward coloring), written only against
/// the ops/ API.

#include <cstdint>
#include <functional>
#include <vector>

#include "spindle/graph.hpp"
#include "spindle/plan.hpp"

namespace spindle {

/// Options of weakly_connected_components() and strongly_connected_components().
struct ComponentsOptions {
  /// Where the ops run (Auto: CUDA when available). Resolved once per call.
  Device device = Device::Auto;
  /// Forces an mxv/vxm kernel (Auto: the planner decides).
  MxvKernel mxv_kernel = MxvKernel::Auto;
  /// Cooperative cancellation: called on the calling thread before every round, never inside an
  /// operation; returning true stops the call with spindle::Cancelled, and an exception it throws
  /// propagates unchanged. Empty: never called.
  std::function<bool()> cancel = nullptr;
};

/// Result of the component algorithms, indexed by internal vertex id.
struct ComponentsResult {
  /// label[v] = the smallest internal vertex id of v's component, so two vertices share a label
  /// exactly when they are in the same component, and the labels do not depend on the thread
  /// count or the backend.
  std::vector<std::int64_t> label;
  /// Number of components (vertices v with label[v] == v).
  std::int64_t count = 0;
  /// Rounds run: hooking/shortcutting rounds (weak) or coloring rounds (strong).
  std::int64_t rounds = 0;
};

/// Weakly connected components of A: u and v are connected when a path joins them ignoring edge
/// directions (for a symmetric A, the connected components of the undirected graph). Values are
/// ignored; self-loops are harmless.
///
/// FastSV-style (Zhang, Azad and Hu, "FastSV: A Distributed-Memory Connected Component Algorithm
/// with Fast Convergence"): per round the grandparents gf = f[f] are gathered, the smallest
/// grandparent over the neighbors in both directions is one mxv and one vxm over the min_times
/// semiring (pattern graph, so min over neighbors), f = min(f, that) is an ewise_add (aggressive
/// hooking; gf ≤ f makes it a shortcut as well). It stops when a round changes no label. The
/// gather f[f] runs on the host (the ops have no GrB_extract yet): on CUDA one download of f per
/// round.
/// @throws InvalidArgument on a non-square graph; Cancelled; Unsupported / DeviceError as the ops.
template <class I, class V>
ComponentsResult weakly_connected_components(const Graph<I, V>& A,
                                             const ComponentsOptions& options = {});

/// Strongly connected components of A (u -> v is A(u, v)): u and v share a component when each
/// reaches the other. Values are ignored.
///
/// Rounds over the vertices not yet assigned (R): first trimming, repeated while it removes
/// something (a vertex of R without in-edges or without out-edges inside R is a component by
/// itself: one vxm and one mxv over any_pair masked by R); then coloring: forward min-label
/// propagation inside R (vxm over min_times to a fixed point) gives every vertex the smallest id
/// that reaches it, the vertices whose color is their own id are roots, and a backward
/// propagation from the roots inside each color (mxv over max_times, kept where it equals the
/// vertex's color) collects each root's component. Those are removed from R.
/// @throws InvalidArgument on a non-square graph; Cancelled; Unsupported / DeviceError as the ops.
template <class I, class V>
ComponentsResult strongly_connected_components(const Graph<I, V>& A,
                                               const ComponentsOptions& options = {});

}  // namespace spindle
