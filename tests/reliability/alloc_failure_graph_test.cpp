// SPDX-License-Identifier: Apache-2.0
// Allocation-failure injection through graph building and the cached derived properties: for
// n = 1, 2, ... the n-th checked allocation fails until the call succeeds. Every failure must be
// an OutOfMemory (a spindle::Error), leave the caller's inputs bit-identical and cache nothing
// half-built; the final successful call must match an independent dense oracle.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "spindle/coo_builder.hpp"
#include "spindle/debug/allocation.hpp"
#include "spindle/graph.hpp"

namespace spindle {
namespace {

class AllocFailureGraph : public ::testing::Test {
 protected:
  void TearDown() override { debug::reset_allocation_hook(); }
};

// Random COO with empty rows, one dense row, power-law-ish rows, duplicates and self-loops.
template <class I>
Coo<I> random_coo(I rows, I cols, std::uint64_t seed, bool values) {
  Coo<I> c;
  c.rows = rows;
  c.cols = cols;
  std::mt19937_64 rng(seed);
  if (rows == 0 || cols == 0) return c;
  auto add = [&](I i, I j) {
    c.row.push_back(i);
    c.col.push_back(j);
    if (values) c.val.push_back(static_cast<double>(static_cast<int>(rng() % 17) - 8));
  };
  for (I j = 0; j < cols; ++j) add(0, j);  // dense row 0
  for (I i = 1; i < rows; ++i) {
    if (i % 3 == 0) continue;                                    // empty rows
    const int len = static_cast<int>(1 + (rows / (i + 1)) % 7);  // heavier rows at small i
    for (int t = 0; t < len; ++t) add(i, static_cast<I>(rng() % cols));
  }
  if (rows > 2 && cols > 2) {
    add(2, 1);
    add(2, 1);  // a duplicate
    add(1, 1);  // a self-loop
  }
  return c;
}

// Dense oracle of build_graph's documented semantics (sum duplicates, symmetrize optional).
std::map<std::pair<std::int64_t, std::int64_t>, double> dense_oracle(const Coo<std::int64_t>& c,
                                                                     bool symmetrize) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> m;
  for (std::size_t k = 0; k < c.row.size(); ++k) {
    const double v = c.val.empty() ? 1.0 : c.val[k];
    m[{c.row[k], c.col[k]}] += v;
    if (symmetrize && c.row[k] != c.col[k]) m[{c.col[k], c.row[k]}] += v;
  }
  return m;
}

template <class I>
std::map<std::pair<std::int64_t, std::int64_t>, double> graph_entries(const Graph<I, double>& g) {
  std::map<std::pair<std::int64_t, std::int64_t>, double> m;
  for (I i = 0; i < g.rows(); ++i) {
    for (I k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) m[{i, g.col_idx()[k]}] = g.values()[k];
  }
  return m;
}

// Runs f() with the n-th allocation failing, n = 1, 2, ..., until it succeeds; returns the
// number of injected failures. f must throw only OutOfMemory while the hook fires.
template <class F>
int fail_each_allocation_until_success(F&& f, int limit = 200) {
  for (int n = 1; n <= limit; ++n) {
    debug::fail_nth_allocation(n);
    try {
      f();
      const bool fired = debug::allocation_failure_fired();
      debug::reset_allocation_hook();
      EXPECT_FALSE(fired) << "the call swallowed injected failure " << n;
      return n - 1;
    } catch (const OutOfMemory& e) {
      EXPECT_TRUE(debug::allocation_failure_fired())
          << "OutOfMemory without injection: " << e.what();
      EXPECT_NE(std::string(e.what()).find("injected allocation failure #" + std::to_string(n)),
                std::string::npos)
          << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "allocation " << n
                    << " failed with a non-OutOfMemory exception: " << e.what();
      debug::reset_allocation_hook();
      return -1;
    }
  }
  ADD_FAILURE() << "the call never succeeded within " << limit << " allocations";
  return -1;
}

TEST_F(AllocFailureGraph, BuildGraphFailsCleanlyAtEveryAllocationAndThenMatchesOracle) {
  for (const bool symmetrize : {false, true}) {
    for (const bool drop_loops : {false, true}) {
      const Coo<std::int64_t> input = random_coo<std::int64_t>(40, 40, 11, true);
      const Coo<std::int64_t> pristine = input;
      BuildOptions opts;
      opts.symmetrize = symmetrize;
      opts.self_loops = drop_loops ? SelfLoopPolicy::Drop : SelfLoopPolicy::Keep;
      Graph<std::int64_t, double> g;
      const int failures = fail_each_allocation_until_success(
          [&] { g = build_graph<std::int64_t, double>(input, opts); });
      EXPECT_GE(failures, 5) << "build_graph should allocate through the hook";
      EXPECT_EQ(input.row, pristine.row);
      EXPECT_EQ(input.col, pristine.col);
      EXPECT_EQ(input.val, pristine.val);
      auto expect = dense_oracle(input, symmetrize);
      if (drop_loops) {
        for (auto it = expect.begin(); it != expect.end();) {
          it = it->first.first == it->first.second ? expect.erase(it) : std::next(it);
        }
      }
      EXPECT_EQ(graph_entries(g), expect);
    }
  }
}

TEST_F(AllocFailureGraph, BuildGraphInt32PatternFailsCleanly) {
  const Coo<std::int32_t> input = random_coo<std::int32_t>(25, 31, 5, false);
  Graph<std::int32_t, Pattern> g;
  const int failures =
      fail_each_allocation_until_success([&] { g = build_graph<std::int32_t, Pattern>(input); });
  EXPECT_GE(failures, 4);
  EXPECT_EQ(g.rows(), 25);
  EXPECT_EQ(g.cols(), 31);
}

TEST_F(AllocFailureGraph, DegenerateShapesBuildUnderInjection) {
  for (auto shape : {std::pair<int, int>{0, 0}, {1, 1}, {0, 5}, {5, 0}}) {
    Coo<std::int32_t> c;
    c.rows = shape.first;
    c.cols = shape.second;
    if (shape.first == 1) {
      c.row = {0};
      c.col = {0};
      c.val = {2.5};
    }
    Graph<std::int32_t, double> g;
    fail_each_allocation_until_success([&] { g = build_graph<std::int32_t, double>(c); });
    EXPECT_EQ(g.rows(), shape.first);
    EXPECT_EQ(g.nnz(), shape.first == 1 ? 1 : 0);
  }
}

TEST_F(AllocFailureGraph, TransposeCachesNothingUntilItSucceeds) {
  const auto g = build_graph<std::int32_t, double>(random_coo<std::int32_t>(30, 20, 3, true));
  const auto rp = g.row_ptr();
  const auto ci = g.col_idx();
  const auto vals = g.values();
  const Graph<std::int32_t, double>* t = nullptr;
  const int failures = fail_each_allocation_until_success([&] { t = &g.transpose(); });
  EXPECT_GE(failures, 3);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(g.row_ptr(), rp);
  EXPECT_EQ(g.col_idx(), ci);
  EXPECT_EQ(g.values(), vals);
  // Oracle: entry (i, j) of g is entry (j, i) of the transpose.
  std::map<std::pair<std::int64_t, std::int64_t>, double> flipped;
  for (const auto& [ij, v] : graph_entries(g)) flipped[{ij.second, ij.first}] = v;
  EXPECT_EQ(graph_entries(*t), flipped);
  EXPECT_EQ(t->rows(), 20);
  // Cached now: a second call allocates nothing.
  debug::count_allocations();
  (void)g.transpose();
  EXPECT_EQ(debug::allocation_count(), 0);
}

TEST_F(AllocFailureGraph, DegreesAndWithValuesFailCleanly) {
  const auto g = build_graph<std::int64_t, float>(random_coo<std::int64_t>(17, 9, 8, true));
  const std::vector<std::int64_t>* out = nullptr;
  const std::vector<std::int64_t>* in = nullptr;
  fail_each_allocation_until_success([&] { out = &g.out_degrees(); });
  fail_each_allocation_until_success([&] { in = &g.in_degrees(); });
  std::vector<std::int64_t> out_ref(17, 0), in_ref(9, 0);
  for (std::int64_t i = 0; i < 17; ++i) {
    for (auto k = g.row_ptr()[i]; k < g.row_ptr()[i + 1]; ++k) {
      ++out_ref[i];
      ++in_ref[g.col_idx()[k]];
    }
  }
  EXPECT_EQ(*out, out_ref);
  EXPECT_EQ(*in, in_ref);
  Graph<std::int64_t, double> d;
  fail_each_allocation_until_success([&] { d = g.with_values<double>(); });
  ASSERT_EQ(d.nnz(), g.nnz());
  for (std::int64_t k = 0; k < g.nnz(); ++k) EXPECT_EQ(d.values()[k], double(g.values()[k]));
}

}  // namespace
}  // namespace spindle
