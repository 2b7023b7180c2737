// SPDX-License-Identifier: Apache-2.0
/// @file bfs.cpp
/// @brief Level-synchronous BFS by masked vxm over the ops/ API.

#include "spindle/algorithms/bfs.hpp"

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

// Vertex ids travel as doubles: exact up to 2^53 vertices, far beyond any graph we can hold.
using Id = double;

template <class G>
BfsResult run(const G& A, std::int64_t source, const BfsOptions& o, const Descriptor& desc) {
  const std::int64_t n = A.rows();
  const Descriptor replace = detail::with_replace(desc);

  // level(v) present once v is visited: it doubles as the complemented structural mask.
  Vector<Id> level = Vector<Id>::empty(n);
  level.set(source, 0);
  Vector<Id> parent;
  Vector<Id> ids;  // ids(v) = v + 1, so that "absent" and vertex 0 are told apart
  Vector<Id> frontier = Vector<Id>::empty(n);
  Vector<Id> next = Vector<Id>::empty(n);
  if (o.parents) {
    parent = Vector<Id>::empty(n);
    parent.set(source, Id(source + 1));
    std::vector<Id> idv(static_cast<std::size_t>(n));
    for (std::int64_t v = 0; v < n; ++v) idv[static_cast<std::size_t>(v)] = Id(v + 1);
    ids = Vector<Id>(std::move(idv));
  }
  frontier.set(source, o.parents ? Id(source + 1) : Id(1));

  std::int64_t depth = 1;
  for (std::int64_t d = 1; d < n; ++d) {
    const Mask unvisited = Mask::structural(level, /*complement=*/true);
    if (o.parents) {
      // next(v) = min over frontier in-neighbors u of (u + 1): the smallest parent id + 1.
      vxm(next, unvisited, Accum::none(), semiring::min_times<Id>{}, frontier, A, replace);
    } else {
      vxm(next, unvisited, Accum::none(), semiring::any_pair<Id>{}, frontier, A, replace);
    }
    // Every present entry of next is >= 1, so the max is 0 (or -inf) exactly when it is empty.
    if (!(reduce(MonoidKind::Max, next, desc) > Id(0))) break;
    assign(level, Mask::structural(next), Accum::none(), Id(d), desc);
    if (o.parents) {
      assign(parent, Mask::structural(next), Accum::none(), next, desc);
      // The new frontier carries its own ids + 1 for the next level's min.
      ewise_mult(frontier, Mask{}, Accum::none(), BinaryOp::Second, next, ids, desc);
    } else {
      std::swap(frontier, next);
    }
    depth = d + 1;
  }

  // Package: absent -> -1 (a host-side copy of the result, not a graph traversal). The arrays are
  // read whole (one download each): per-entry present(v) / operator[] calls check the device
  // copy's state every time.
  BfsResult result;
  result.depth = depth;
  result.level.assign(static_cast<std::size_t>(n), -1);
  {
    const std::vector<Id>& lv = level.values();
    const std::vector<std::uint8_t>& lp = level.bitmap();
    for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
      if (lp.empty() || lp[v] != 0) {
        result.level[v] = static_cast<std::int64_t>(lv[v]);
        ++result.reached;
      }
    }
  }
  if (o.parents) {
    result.parent.assign(static_cast<std::size_t>(n), -1);
    const std::vector<Id>& pv = parent.values();
    const std::vector<std::uint8_t>& pp = parent.bitmap();
    for (std::size_t v = 0; v < static_cast<std::size_t>(n); ++v) {
      if (pp.empty() || pp[v] != 0) result.parent[v] = static_cast<std::int64_t>(pv[v]) - 1;
    }
  }
  return result;
}

}  // namespace

template <class I, class V>
BfsResult bfs(const Graph<I, V>& A, std::int64_t source, const BfsOptions& options) {
  detail::require_square(A, "bfs");
  detail::require_source(source, A.rows(), "bfs");
  const Descriptor desc = detail::algorithm_descriptor(options.device, options.mxv_kernel);
  // min_times multiplies by the edge value, so parents need the pattern (every edge 1); levels
  // ignore values anyway (any_pair), so the pattern serves both and halves the bytes per edge.
  return detail::with_operand_graph(A, /*use_values=*/false,
                                    [&](const auto& G) { return run(G, source, options, desc); });
}

#define SPINDLE_BFS_INST(I, V) \
  template BfsResult bfs<I, V>(const Graph<I, V>&, std::int64_t, const BfsOptions&);
SPINDLE_BFS_INST(std::int32_t, float)
SPINDLE_BFS_INST(std::int32_t, double)
SPINDLE_BFS_INST(std::int32_t, Pattern)
SPINDLE_BFS_INST(std::int64_t, float)
SPINDLE_BFS_INST(std::int64_t, double)
SPINDLE_BFS_INST(std::int64_t, Pattern)
#undef SPINDLE_BFS_INST

}  // namespace spindle
