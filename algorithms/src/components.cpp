// SPDX-License-Identifier: Apache-2.0
/// @file components.cpp
/// @brief Weakly and strongly connected components over the ops/ API (see components.hpp).

#include "spindle/algorithms/components.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/ewise.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

// Vertex ids travel as doubles: exact up to 2^53 vertices, and the ops' semirings run over
// float and double.
using Id = double;

// Small graphs stay on this thread: waking the others costs more than the loop.
constexpr std::int64_t kParallelVertices = std::int64_t{1} << 16;

ComponentsResult package(std::vector<std::int64_t> label, std::int64_t rounds) {
  ComponentsResult r;
  const std::int64_t n = static_cast<std::int64_t>(label.size());
  std::int64_t count = 0;
  const std::int64_t* l = label.data();
#pragma omp parallel for schedule(static) reduction(+ : count) if (n > kParallelVertices)
  for (std::int64_t v = 0; v < n; ++v) count += l[v] == v ? 1 : 0;
  r.label = std::move(label);
  r.count = count;
  r.rounds = rounds;
  return r;
}

template <class G>
ComponentsResult weak(const G& A, const ComponentsOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  if (n == 0) return package({}, 0);
  const semiring::min_times<Id> min_times{};
  // f: every vertex's parent, a vertex id no larger than its own and in its component.
  Vector<Id> f(n);
  apply_index(f, Mask{}, Accum::none(), Vector<Id>(n, Id(0)), Id(0), desc);
  Vector<Id> gf(n);
  Vector<Id> mngf(n);
  std::vector<Id> before(static_cast<std::size_t>(n));
  std::int64_t rounds = 0;
  for (;;) {
    detail::check_cancel(o.cancel, "weakly_connected_components");
    ++rounds;
    {
      // gf = f[f] on the host (no GrB_extract among the ops).
      const Id* fv = static_cast<const Vector<Id>&>(f).data();
      Id* g = gf.data();
      Id* b = before.data();
#pragma omp parallel for schedule(static) if (n > kParallelVertices)
      for (std::int64_t v = 0; v < n; ++v) {
        g[v] = fv[static_cast<std::int64_t>(fv[v])];
        b[v] = fv[v];
      }
    }
    // mngf(u) = min(gf(u), min over out- and in-neighbors v of gf(v)); the graph is a pattern,
    // so min_times multiplies by 1.
    assign(mngf, Mask{}, Accum::none(), gf, desc);
    mxv(mngf, Mask{}, Accum::min(), min_times, A, gf, desc);
    vxm(mngf, Mask{}, Accum::min(), min_times, gf, A, desc);
    // Aggressive hooking and shortcutting at once: mngf <= gf <= f.
    ewise_add(f, Mask{}, Accum::none(), BinaryOp::Min, f, mngf, desc);
    const Id* fv = static_cast<const Vector<Id>&>(f).data();
    const Id* b = before.data();
    std::int64_t changed = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed) if (n > kParallelVertices)
    for (std::int64_t v = 0; v < n; ++v) changed += fv[v] != b[v] ? 1 : 0;
    if (changed == 0) break;
  }
  // At the fixed point f(u) = f(f(u)) and f(u) <= f(v) for every edge in either direction, so f
  // is constant on each component and equal to its smallest id (which never changes).
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  const Id* fv = static_cast<const Vector<Id>&>(f).data();
  std::int64_t* l = label.data();
#pragma omp parallel for schedule(static) if (n > kParallelVertices)
  for (std::int64_t v = 0; v < n; ++v) l[v] = static_cast<std::int64_t>(fv[v]);
  return package(std::move(label), rounds);
}

// Present entries of a 0/1 vector (any_pair products and the like hold 1 where present).
std::int64_t count_ones(const Vector<Id>& x, const Descriptor& desc) {
  return static_cast<std::int64_t>(reduce(MonoidKind::Plus, x, desc));
}

template <class G>
ComponentsResult strong(const G& A, const ComponentsOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  if (n == 0) return package({}, 0);
  const Descriptor replace = detail::with_replace(desc);
  const char* who = "strongly_connected_components";
  // live: 1 on the vertices not assigned yet (R); scc: the component label once assigned.
  Vector<Id> live(n, Id(1));
  // Masked outputs need their size up front: every work vector starts empty, where the ops run.
  auto fresh = [&] { return detail::empty_vector<Id>(n, desc); };
  Vector<Id> scc = fresh();
  std::int64_t remaining = n;
  Vector<Id> in_r = fresh(), out_r = fresh(), keep = fresh(), ids = fresh(), color = fresh(),
             t = fresh(), d = fresh(), nz = fresh(), root = fresh();
  std::int64_t rounds = 0;
  while (remaining > 0) {
    // Trimming: a vertex without an in-neighbor or an out-neighbor inside R is its own component.
    for (;;) {
      detail::check_cancel(o.cancel, who);
      vxm(in_r, Mask::structural(live), Accum::none(), semiring::any_pair<Id>{}, live, A, replace);
      mxv(out_r, Mask::structural(live), Accum::none(), semiring::any_pair<Id>{}, A, live, replace);
      ewise_mult(keep, Mask{}, Accum::none(), BinaryOp::Pair, in_r, out_r, desc);
      const std::int64_t kept = count_ones(keep, desc);
      if (kept == remaining) break;
      // The trimmed vertices label themselves: ids on live's structure outside keep.
      apply_index(ids, Mask::structural(keep, /*complement=*/true), Accum::none(), live, Id(0),
                  replace);
      assign(scc, Mask::structural(ids), Accum::none(), ids, desc);
      std::swap(live, keep);
      remaining = kept;
      if (remaining == 0) break;
    }
    if (remaining == 0) break;
    ++rounds;
    // Forward coloring: color(v) = the smallest id in R that reaches v inside R.
    apply_index(color, Mask{}, Accum::none(), live, Id(0), desc);
    for (;;) {
      detail::check_cancel(o.cancel, who);
      vxm(t, Mask::structural(live), Accum::none(), semiring::min_times<Id>{}, color, A, replace);
      ewise_mult(d, Mask{}, Accum::none(), BinaryOp::Minus, t, color, desc);
      if (!(reduce(MonoidKind::Min, d, desc) < Id(0))) break;
      ewise_add(color, Mask{}, Accum::none(), BinaryOp::Min, color, t, desc);
    }
    // Roots: color(v) == v. nz is full: 0 exactly where the difference is present and 0.
    apply_index(ids, Mask{}, Accum::none(), live, Id(0), desc);
    ewise_mult(d, Mask{}, Accum::none(), BinaryOp::Minus, color, ids, desc);
    assign(nz, Mask{}, Accum::none(), Id(1), desc);
    apply(nz, Mask::structural(d), Accum::none(), Unary<Id>::make(UnaryOp::IsNonzero), d, desc);
    root = fresh();
    assign(root, Mask::value(nz, /*complement=*/true), Accum::none(), color, desc);
    // Backward inside each color: u joins its color's component when an out-neighbor already in
    // it has u's color. Every out-neighbor v in R has color(v) <= color(u), so the max over the
    // joined out-neighbors equals color(u) exactly when one of them has u's color.
    for (;;) {
      detail::check_cancel(o.cancel, who);
      mxv(t, Mask::structural(root, /*complement=*/true), Accum::none(), semiring::max_times<Id>{},
          A, root, replace);
      ewise_mult(d, Mask{}, Accum::none(), BinaryOp::Minus, t, color, desc);
      if (d.nvals() == 0) break;
      assign(nz, Mask{}, Accum::none(), Id(1), desc);
      apply(nz, Mask::structural(d), Accum::none(), Unary<Id>::make(UnaryOp::IsNonzero), d, desc);
      const std::int64_t joined = n - count_ones(nz, desc);
      if (joined == 0) break;
      assign(root, Mask::value(nz, /*complement=*/true), Accum::none(), color, desc);
    }
    assign(scc, Mask::structural(root), Accum::none(), root, desc);
    apply(live, Mask::structural(root, /*complement=*/true), Accum::none(),
          Unary<Id>::make(UnaryOp::Identity), live, replace);
    remaining = count_ones(live, desc);
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  const Vector<Id>& s = scc;
  for (std::int64_t v = 0; v < n; ++v)
    label[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(s[v]);
  return package(std::move(label), rounds);
}

}  // namespace

template <class I, class V>
ComponentsResult weakly_connected_components(const Graph<I, V>& A,
                                             const ComponentsOptions& options) {
  detail::require_square(A, "weakly_connected_components");
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return weak(G, options, desc); });
}

template <class I, class V>
ComponentsResult strongly_connected_components(const Graph<I, V>& A,
                                               const ComponentsOptions& options) {
  detail::require_square(A, "strongly_connected_components");
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return strong(G, options, desc); });
}

#define SPINDLE_CC_INST(I, V)                                                            \
  template ComponentsResult weakly_connected_components<I, V>(const Graph<I, V>&,        \
                                                              const ComponentsOptions&); \
  template ComponentsResult strongly_connected_components<I, V>(const Graph<I, V>&,      \
                                                                const ComponentsOptions&);
SPINDLE_CC_INST(std::int32_t, float)
SPINDLE_CC_INST(std::int32_t, double)
SPINDLE_CC_INST(std::int32_t, Pattern)
SPINDLE_CC_INST(std::int64_t, float)
SPINDLE_CC_INST(std::int64_t, double)
SPINDLE_CC_INST(std::int64_t, Pattern)
#undef SPINDLE_CC_INST

}  // namespace spindle
