// SPDX-License-Identifier: Apache-2.0
/// @file kcore.cpp
/// @brief Core numbers by level-synchronous peeling over the ops/ API (see kcore.hpp).

#include "spindle/algorithms/kcore.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"

namespace spindle {
namespace {

// Degrees and core numbers travel as doubles (exact integers far beyond any degree).
using D = double;

template <class G>
KCoreResult run(const G& A, const KCoreOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  KCoreResult result;
  result.core.assign(static_cast<std::size_t>(n), 0);
  if (n == 0) return result;
  const Descriptor replace = detail::with_replace(desc);
  const semiring::plus_times<D> plus_times{};
  // deg: the degree of each remaining vertex; its structure is the remaining set.
  Vector<D> deg(n, D(0));
  reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, desc);
  if (o.directed) {
    Descriptor cols = desc;
    cols.transpose_a = true;
    reduce_rows(deg, Mask{}, Accum::plus(), MonoidKind::Plus, A, cols);
  }
  Vector<D> core(n, D(0));
  Vector<D> sel = detail::empty_vector<D>(n, desc);
  Vector<D> peel = detail::empty_vector<D>(n, desc);
  Vector<D> dec = detail::empty_vector<D>(n, desc);
  std::int64_t remaining = n;
  D k = 0;
  while (remaining > 0) {
    k = std::max(k, reduce(MonoidKind::Min, deg, desc));
    for (;;) {
      detail::check_cancel(o.cancel, "core_numbers");
      ++result.steps;
      // sel = (max(deg - k, 0) != 0): 0 exactly on the remaining vertices of degree <= k.
      apply(sel, Mask{}, Accum::none(), Unary<D>::plus(-k), deg, desc);
      apply(sel, Mask{}, Accum::none(), Unary<D>::make(UnaryOp::Relu), sel, desc);
      apply(sel, Mask{}, Accum::none(), Unary<D>::make(UnaryOp::IsNonzero), sel, desc);
      // peel = 1 on those (the complemented value mask also selects absent entries, where deg
      // is absent too, so nothing is made there).
      apply(peel, Mask::value(sel, /*complement=*/true), Accum::none(),
            Unary<D>::make(UnaryOp::One), deg, replace);
      const auto peeled = static_cast<std::int64_t>(reduce(MonoidKind::Plus, peel, desc));
      if (peeled == 0) break;
      assign(core, Mask::structural(peel), Accum::none(), k, desc);
      apply(deg, Mask::structural(peel, /*complement=*/true), Accum::none(),
            Unary<D>::make(UnaryOp::Identity), deg, replace);
      remaining -= peeled;
      if (remaining == 0) break;
      // Each remaining vertex loses one degree per edge to a peeled vertex (both directions in
      // directed mode).
      // vxm first: with a small peeled set the planner can push from it instead of pulling over
      // every row (A is symmetric in undirected mode, so vxm alone gives the neighbor counts).
      vxm(dec, Mask::structural(deg), Accum::none(), plus_times, peel, A, replace);
      if (o.directed) mxv(dec, Mask::structural(deg), Accum::plus(), plus_times, A, peel, desc);
      assign(deg, Mask::structural(dec), Accum::with(BinaryOp::Minus), dec, desc);
    }
  }
  const std::vector<D>& cv = static_cast<const Vector<D>&>(core).values();
  for (std::int64_t v = 0; v < n; ++v) {
    result.core[static_cast<std::size_t>(v)] = static_cast<std::int64_t>(cv[v]);
  }
  result.max_core = static_cast<std::int64_t>(k);
  return result;
}

}  // namespace

template <class I, class V>
KCoreResult core_numbers(const Graph<I, V>& A, const KCoreOptions& options) {
  detail::require_square(A, "core_numbers");
  if (A.stats().self_loops > 0) {
    throw InvalidArgument("core_numbers: the graph has " + std::to_string(A.stats().self_loops) +
                          " self-loops; core numbers are not defined with them (networkx refuses "
                          "them too): remove them first");
  }
  if (!options.directed && !detail::symmetric_structure(A)) {
    throw InvalidArgument(
        "core_numbers: the graph is not symmetric; store an undirected graph in both directions "
        "(symmetrize it) or ask for directed core numbers (degree = in + out)");
  }
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return run(G, options, desc); });
}

#define SPINDLE_KCORE_INST(I, V) \
  template KCoreResult core_numbers<I, V>(const Graph<I, V>&, const KCoreOptions&);
SPINDLE_KCORE_INST(std::int32_t, float)
SPINDLE_KCORE_INST(std::int32_t, double)
SPINDLE_KCORE_INST(std::int32_t, Pattern)
SPINDLE_KCORE_INST(std::int64_t, float)
SPINDLE_KCORE_INST(std::int64_t, double)
SPINDLE_KCORE_INST(std::int64_t, Pattern)
#undef SPINDLE_KCORE_INST

}  // namespace spindle
