// SPDX-License-Identifier: Apache-2.0
/// @file bfs.cpp
/// @brief Level-synchronous BFS by masked vxm over the ops/ API.

#include "spindle/algorithms/bfs.hpp"

#include <cstdint>
#include <utility>
#include <vector>

#include "algorithms/src/detail_common.hpp"
#include "spindle/detail/host_pages.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/assign.hpp"
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
  const std::vector<std::int64_t> at_source{source};

  // Every vector is born where the ops run and gets its source entry through an index-list
  // assign: on CUDA no host array is made or uploaded (detail::empty_vector).
  // level(v) present once v is visited: it doubles as the complemented structural mask.
  Vector<std::int64_t> level = detail::empty_vector<std::int64_t>(n, desc);
  assign(level, Mask{}, Accum::none(), std::int64_t{0}, at_source, desc);
  Vector<Id> parent;
  Vector<Id> frontier = detail::empty_vector<Id>(n, desc);
  Vector<Id> next = detail::empty_vector<Id>(n, desc);
  if (o.parents) {
    parent = detail::empty_vector<Id>(n, desc);
    assign(parent, Mask{}, Accum::none(), Id(source + 1), at_source, desc);
  }
  assign(frontier, Mask{}, Accum::none(), o.parents ? Id(source + 1) : Id(1), at_source, desc);

  std::int64_t depth = 1;
  for (std::int64_t d = 1; d < n; ++d) {
    detail::check_cancel(o.cancel, "bfs");
    const Mask unvisited = Mask::structural(level, /*complement=*/true);
    if (o.parents) {
      // next(v) = min over frontier in-neighbors u of (u + 1): the smallest parent id + 1.
      vxm(next, unvisited, Accum::none(), semiring::min_times<Id>{}, frontier, A, replace);
    } else {
      vxm(next, unvisited, Accum::none(), semiring::any_pair<Id>{}, frontier, A, replace);
    }
    // Every present entry of next is >= 1, so the max is 0 (or -inf) exactly when it is empty.
    if (!(reduce(MonoidKind::Max, next, desc) > Id(0))) break;
    assign(level, Mask::structural(next), Accum::none(), d, desc);
    if (o.parents) {
      assign(parent, Mask::structural(next), Accum::none(), next, desc);
      // The new frontier carries its own ids + 1 (so that "absent" and vertex 0 are told apart)
      // for the next level's min: GrB_ROWINDEX over next's structure, on the device.
      apply_index(frontier, Mask{}, Accum::none(), next, Id(1), desc);
    } else {
      std::swap(frontier, next);
    }
    depth = d + 1;
  }

  // Package: absent -> -1. The full arrays are made where the ops run (one download each on
  // CUDA, nothing per entry); the levels are already int64 and are taken whole.
  BfsResult result;
  result.depth = depth;
  {
    // Through the accumulator `second` (the level where there is one): the output stays full,
    // so no presence bytes are made or downloaded.
    Vector<std::int64_t> full(n, std::int64_t{-1});
    assign(full, Mask::structural(level), Accum::with(BinaryOp::Second), level, desc);
    // `full` ends here: its array is moved out instead of copied.
    result.level = std::move(full.values());
  }
  std::int64_t reached = 0;
  const std::int64_t* lv = result.level.data();
  // Small graphs stay on this thread: waking the others costs more than the loop (and far more
  // on a busy machine).
  constexpr std::int64_t kParallelVertices = std::int64_t{1} << 16;
#pragma omp parallel for schedule(static) reduction(+ : reached) if (n > kParallelVertices)
  for (std::int64_t v = 0; v < n; ++v) reached += lv[v] >= 0 ? 1 : 0;
  result.reached = reached;
  if (o.parents) {
    Vector<Id> full(n, Id(0));  // parent id + 1; 0 where unreached
    assign(full, Mask::structural(parent), Accum::with(BinaryOp::Second), parent, desc);
    const std::vector<Id>& pv = static_cast<const Vector<Id>&>(full).values();
    // 8n bytes (32 MB on R-MAT 22): faulted in on all threads (detail/host_pages.hpp); a plain
    // resize faulted them on one, about 23 ms of a 58 ms GPU BFS there.
    result.parent =
        detail::large_workspace<std::int64_t>(static_cast<std::size_t>(n), "bfs: parents");
    std::int64_t* out = result.parent.data();
#pragma omp parallel for schedule(static) if (n > kParallelVertices)
    for (std::int64_t v = 0; v < n; ++v) {
      out[v] = static_cast<std::int64_t>(pv[static_cast<std::size_t>(v)]) - 1;
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
  // min_times multiplies by the edge value, so parents need the pattern (every edge 1): over a
  // valued graph, its pattern copy kept with the graph (detail::pattern_of). Levels ignore values
  // (any_pair; the CUDA kernels read the graph as a pattern), so they run over A itself: no
  // copy, and A's cached transpose and device copy serve every call.
  return detail::with_operand_graph(A, /*use_values=*/!options.parents,
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
