// SPDX-License-Identifier: Apache-2.0
// Uses an installed Spindle: builds a graph from edges, reads its cached statistics, runs an mxv
// and PageRank, plans a vxm for a reference GPU, and checks each against values worked out by hand
// for this 4-vertex graph.
#include <cmath>
#include <cstdio>

#include "spindle/spindle.hpp"  // alone: the umbrella must bring the algorithms and loaders too

int main() {
  // 0 -> 1, 0 -> 2, 1 -> 2, 2 -> 0, 2 -> 0 (duplicate), 3 isolated.
  spindle::Coo<std::int32_t> coo;
  coo.rows = coo.cols = 4;
  coo.row = {0, 0, 1, 2, 2};
  coo.col = {1, 2, 2, 0, 0};
  auto g = spindle::build_graph<std::int32_t, spindle::Pattern>(coo);
  const spindle::GraphStats& s = g.stats();
  bool ok = s.rows == 4 && s.nnz == 4 && s.empty_rows == 1 && s.max_row == 2;

  // y = A x over plus_times with x = (1, 2, 3, 4): y = (2+3, 3, 1, 0).
  spindle::Vector<double> x(std::vector<double>{1, 2, 3, 4}), y(4);
  spindle::mxv(y, spindle::Mask{}, spindle::Accum::none(), spindle::semiring::plus_times<double>{},
               g, x);
  ok = ok && y[0] == 5 && y[1] == 3 && y[2] == 1 && y.present(2);

  auto pr = spindle::pagerank<double>(g);
  double sum = 0;
  for (std::int64_t v = 0; v < 4; ++v) sum += pr.ranks[v];
  ok = ok && pr.converged && std::fabs(sum - 1.0) < 1e-9;

  // What-if planning for a reference H100 works on any machine (no GPU needed): a CUDA plan.
  const spindle::Plan plan = spindle::plan_for_vxm<spindle::semiring::plus_times<float>>(
      g, spindle::Mask{}, spindle::Accum::none(), {}, spindle::reference_hopper_caps());
  ok = ok && plan.device == spindle::Device::Cuda && !plan.reason.empty();

  std::printf("spindle consumer: %s (spindle %s, %lld entries)\n", ok ? "ok" : "MISMATCH",
              spindle::version(), static_cast<long long>(s.nnz));
  return ok ? 0 : 1;
}
