// SPDX-License-Identifier: Apache-2.0
// The algorithms' `cancel` hook: called once before every iteration (level, round, layer),
// stopping the call with Cancelled when it returns true, letting its own exceptions through, and
// changing nothing when it never fires.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "spindle/algorithms.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/error.hpp"

namespace spindle {
namespace {

// A directed path 0 -> 1 -> ... -> n-1 closed into a cycle: BFS needs n - 1 levels, SSSP n
// rounds, and PageRank / power iteration converge slowly enough to take several iterations.
Graph<std::int32_t, double> cycle(std::int32_t n) {
  Coo<std::int32_t> coo;
  coo.rows = coo.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    coo.row.push_back(i);
    coo.col.push_back((i + 1) % n);
    coo.val.push_back(1.0 + i % 3);
  }
  coo.row.push_back(0);  // a chord, so the walk is not periodic
  coo.col.push_back(n / 2);
  coo.val.push_back(1.0);
  return build_graph<std::int32_t, double>(std::move(coo));
}

// A hook that asks to stop on its `stop_at`-th call and counts the calls.
struct StopAt {
  int stop_at;
  int* calls;
  bool operator()() const { return ++*calls >= stop_at; }
};

TEST(Cancel, EveryAlgorithmStopsWithCancelledWhenTheHookSaysSo) {
  const auto g = cycle(40);
  int calls = 0;
  {
    PageRankOptions o;
    o.tol = 0;
    o.cancel = StopAt{3, &calls};
    EXPECT_THROW(pagerank<double>(g, o), Cancelled);
    EXPECT_EQ(calls, 3);
  }
  {
    calls = 0;
    PowerIterationOptions o;
    o.tol = 0;
    o.cancel = StopAt{4, &calls};
    EXPECT_THROW(power_iteration<double>(g, o), Cancelled);
    EXPECT_EQ(calls, 4);
  }
  {
    calls = 0;
    BfsOptions o;
    o.cancel = StopAt{5, &calls};
    EXPECT_THROW(bfs(g, 0, o), Cancelled);
    EXPECT_EQ(calls, 5);
  }
  {
    calls = 0;
    SsspOptions o;
    o.cancel = StopAt{6, &calls};
    EXPECT_THROW(sssp<double>(g, 0, o), Cancelled);
    EXPECT_EQ(calls, 6);
  }
  {
    calls = 0;
    GcnOptions o;
    o.cancel = StopAt{2, &calls};
    const GcnModel<float> model = glorot_model<float>(4, {8, 8, 2}, 1);
    EXPECT_THROW(gcn_inference(g, random_features<float>(40, 4, 2), model, o), Cancelled);
    EXPECT_EQ(calls, 2);
  }
}

TEST(Cancel, AHookThatNeverFiresIsCalledOncePerIterationAndChangesNothing) {
  const auto g = cycle(40);
  int calls = 0;
  PageRankOptions o;
  const PageRankResult<double> plain = pagerank<double>(g, o);
  o.cancel = StopAt{1 << 30, &calls};
  const PageRankResult<double> hooked = pagerank<double>(g, o);
  EXPECT_EQ(calls, hooked.iterations);  // the CPU backend runs no extra iteration
  ASSERT_EQ(plain.iterations, hooked.iterations);
  for (std::int64_t v = 0; v < 40; ++v) EXPECT_EQ(plain.ranks[v], hooked.ranks[v]);

  calls = 0;
  BfsOptions b;
  b.cancel = StopAt{1 << 30, &calls};
  const BfsResult r = bfs(g, 0, b);
  EXPECT_EQ(r.reached, 40);
  EXPECT_GE(calls, r.depth - 1);
}

TEST(Cancel, AnExceptionFromTheHookPropagatesUnchanged) {
  const auto g = cycle(10);
  SsspOptions o;
  o.cancel = []() -> bool { throw std::range_error("from the hook"); };
  EXPECT_THROW(sssp<float>(g, 0, o), std::range_error);
}

}  // namespace
}  // namespace spindle
