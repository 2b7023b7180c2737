// SPDX-License-Identifier: Apache-2.0
// What the operations do with NaN and Inf: the rules documented in docs/numerics.md, each
// checked against an oracle written here from IEEE-754 and the documented fold order. The mxv
// cases also run on CUDA (when a device is present) and must give the CPU's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "spindle/algorithms/pagerank.hpp"
#include "spindle/algorithms/sssp.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops.hpp"

namespace spindle {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// One row with the given stored values in columns 0..k-1.
Graph<std::int32_t, double> one_row(const std::vector<double>& a) {
  const auto k = static_cast<std::int32_t>(a.size());
  std::vector<std::int32_t> rp{0, k}, ci(a.size());
  for (std::int32_t j = 0; j < k; ++j) ci[j] = j;
  return Graph<std::int32_t, double>(1, k, rp, ci, a);
}

struct Out {
  bool present = false;
  double value = 0.0;
};

bool same(const Out& a, const Out& b) {
  if (a.present != b.present) return false;
  if (!a.present) return true;
  return (std::isnan(a.value) && std::isnan(b.value)) || a.value == b.value;
}
std::string show(const Out& o) { return o.present ? std::to_string(o.value) : "absent"; }

// w = A ⊕.⊗ u for the one-row graph, on the given device.
template <class S>
Out row_product(const std::vector<double>& a, const std::vector<double>& u, Device dev) {
  const auto A = one_row(a);
  Vector<double> uv(u);
  Vector<double> w;
  Descriptor d;
  d.device = dev;
  mxv(w, Mask{}, Accum::none(), S{}, A, uv, d);
  const Vector<double>& r = w;
  return Out{r.present(0), r.present(0) ? r[0] : 0.0};
}

// Checks the CPU result against `expect` and, with a CUDA device, the CUDA result against CPU.
template <class S>
void expect_row(const char* what, const std::vector<double>& a, const std::vector<double>& u,
                Out expect) {
  const Out cpu = row_product<S>(a, u, Device::Cpu);
  EXPECT_TRUE(same(cpu, expect)) << what << ": CPU gives " << show(cpu) << ", documented "
                                 << show(expect);
  if (cuda_available()) {
    const Out gpu = row_product<S>(a, u, Device::Cuda);
    EXPECT_TRUE(same(gpu, cpu)) << what << ": CUDA gives " << show(gpu) << ", CPU " << show(cpu);
  }
}

Out val(double v) { return Out{true, v}; }

TEST(Numerics, PlusTimesPropagatesNaNAndFollowsIeeeForInf) {
  using S = semiring::plus_times<double>;
  expect_row<S>("NaN in A", {kNaN, 2}, {1, 1}, val(kNaN));
  expect_row<S>("NaN in u", {1, 2}, {1, kNaN}, val(kNaN));
  expect_row<S>("Inf * 0", {kInf, 2}, {0, 1}, val(kNaN));
  expect_row<S>("Inf - Inf", {kInf, kInf}, {1, -1}, val(kNaN));
  expect_row<S>("Inf + finite", {kInf, 2}, {1, 1}, val(kInf));
  expect_row<S>("overflow to Inf", {1e308, 1e308}, {10, 10}, val(kInf));
}

TEST(Numerics, MinAndMaxReductionsIgnoreNaNTermsWhateverTheirPosition) {
  expect_row<semiring::min_plus<double>>("min_plus NaN first", {kNaN, 3}, {0, 0}, val(3));
  expect_row<semiring::min_plus<double>>("min_plus NaN last", {3, kNaN}, {0, 0}, val(3));
  expect_row<semiring::min_plus<double>>("min_plus NaN in u", {3, 1}, {0, kNaN}, val(3));
  expect_row<semiring::max_plus<double>>("max_plus NaN first", {kNaN, 3}, {0, 0}, val(3));
  expect_row<semiring::max_plus<double>>("max_plus NaN last", {3, kNaN}, {0, 0}, val(3));
  expect_row<semiring::max_times<double>>("max_times NaN", {2, kNaN}, {2, 5}, val(4));
  expect_row<semiring::min_times<double>>("min_times NaN", {kNaN, 2}, {5, 2}, val(4));
  // Every term NaN: the reduction keeps its identity (present, because the row has terms).
  expect_row<semiring::min_plus<double>>("min_plus all NaN", {kNaN, kNaN}, {0, 0}, val(kInf));
  expect_row<semiring::max_plus<double>>("max_plus all NaN", {kNaN}, {1}, val(-kInf));
  // Inf - Inf inside mul is a NaN term, ignored like any other.
  expect_row<semiring::min_plus<double>>("min_plus inf-inf term", {kInf, 7}, {-kInf, 0}, val(7));
  expect_row<semiring::min_plus<double>>("min_plus -inf wins", {-kInf, 7}, {0, 0}, val(-kInf));
}

TEST(Numerics, MinAsMultiplyKeepsTheMatrixOperandOnNaN) {
  // mul = min(A(i,j), u(j)) compares u(j) < A(i,j): false with a NaN, so A(i,j) is kept.
  expect_row<semiring::plus_min<double>>("plus_min NaN in A", {kNaN, 1}, {5, 5}, val(kNaN));
  expect_row<semiring::plus_min<double>>("plus_min NaN in u", {4, 1}, {kNaN, 5}, val(5));
  expect_row<semiring::max_min<double>>("max_min NaN in u", {4, 1}, {kNaN, 5}, val(4));
  expect_row<semiring::max_min<double>>("max_min NaN in A", {kNaN, 1}, {5, 5}, val(1));
}

TEST(Numerics, LogicalSemiringTreatsNaNAsTrueAndPairSemiringsIgnoreValues) {
  expect_row<semiring::lor_land<double>>("lor_land NaN in A", {kNaN}, {1}, val(1));
  expect_row<semiring::lor_land<double>>("lor_land NaN in u", {1}, {kNaN}, val(1));
  expect_row<semiring::lor_land<double>>("lor_land 0 and NaN", {0}, {kNaN}, val(0));
  expect_row<semiring::plus_pair<double>>("plus_pair", {kNaN, kInf}, {kNaN, 1}, val(2));
  expect_row<semiring::any_pair<double>>("any_pair", {kNaN}, {kNaN}, val(1));
}

TEST(Numerics, BinaryMinMaxKeepTheFirstOperandOnNaN) {
  // ewise and accumulators use apply_binary: min(x, y) = y < x ? y : x.
  Vector<double> u(std::vector<double>{kNaN, 1.0, kNaN});
  Vector<double> v(std::vector<double>{1.0, kNaN, kNaN});
  Vector<double> w;
  ewise_add(w, Mask{}, Accum::none(), BinaryOp::Min, u, v);
  EXPECT_TRUE(std::isnan(w[0]));
  EXPECT_EQ(w[1], 1.0);
  EXPECT_TRUE(std::isnan(w[2]));
  ewise_mult(w, Mask{}, Accum::none(), BinaryOp::Max, v, u);
  EXPECT_EQ(w[0], 1.0);
  EXPECT_TRUE(std::isnan(w[1]));
  ewise_add(w, Mask{}, Accum::none(), BinaryOp::Plus, u, v);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(w[i]));
}

TEST(Numerics, AccumulatorKeepsOldNaNAndIgnoresNewNaNForMinMax) {
  const auto A = one_row({1.0});
  Vector<double> u(std::vector<double>{kNaN});
  Vector<double> w(std::vector<double>{5.0});
  mxv(w, Mask{}, Accum::min(), semiring::plus_times<double>{}, A, u);  // t = NaN
  EXPECT_EQ(w[0], 5.0) << "min accumulator: a NaN result leaves w(i) as it was";
  Vector<double> u1(std::vector<double>{2.0});
  Vector<double> wn(std::vector<double>{kNaN});
  mxv(wn, Mask{}, Accum::min(), semiring::plus_times<double>{}, A, u1);  // t = 2
  EXPECT_TRUE(std::isnan(wn[0])) << "min accumulator: an old NaN stays";
  mxv(w, Mask{}, Accum::plus(), semiring::plus_times<double>{}, A, u);
  EXPECT_TRUE(std::isnan(w[0])) << "plus accumulator propagates NaN";
}

TEST(Numerics, ReduceMonoidsFollowTheSameRules) {
  Vector<double> x(std::vector<double>{kNaN, 2.0, -1.0, kNaN});
  EXPECT_EQ(reduce(MonoidKind::Min, x), -1.0);
  EXPECT_EQ(reduce(MonoidKind::Max, x), 2.0);
  EXPECT_TRUE(std::isnan(reduce(MonoidKind::Plus, x)));
  EXPECT_TRUE(std::isnan(reduce(MonoidKind::Times, x)));
  Vector<double> all_nan(std::vector<double>{kNaN, kNaN});
  EXPECT_EQ(reduce(MonoidKind::Min, all_nan), kInf);
  EXPECT_EQ(reduce(MonoidKind::Max, all_nan), -kInf);
  Vector<double> inf(std::vector<double>{kInf, -kInf});
  EXPECT_TRUE(std::isnan(reduce(MonoidKind::Plus, inf)));
  EXPECT_EQ(reduce(MonoidKind::LOr, all_nan), 1.0);
}

TEST(Numerics, UnaryOperatorsOnNaNAndInf) {
  auto one = [](UnaryOp op, double x, double s = 0.0) {
    Vector<double> u(std::vector<double>{x});
    Vector<double> w;
    apply(w, Mask{}, Accum::none(), Unary<double>::make(op, s), u);
    return w[0];
  };
  EXPECT_EQ(one(UnaryOp::Relu, kNaN), 0.0) << "relu(NaN) = 0: NaN > 0 is false";
  EXPECT_TRUE(std::isnan(one(UnaryOp::Abs, kNaN)));
  EXPECT_EQ(one(UnaryOp::IsNonzero, kNaN), 1.0);
  EXPECT_TRUE(std::isnan(one(UnaryOp::MinScalar, kNaN, 1.0)));
  EXPECT_TRUE(std::isnan(one(UnaryOp::MaxScalar, kNaN, 1.0)));
  EXPECT_EQ(one(UnaryOp::MInv, 0.0), kInf);
  EXPECT_EQ(one(UnaryOp::RSqrt, kInf), 0.0);
  EXPECT_TRUE(std::isnan(one(UnaryOp::RSqrt, -1.0)));
  EXPECT_EQ(one(UnaryOp::ScalarDiv, 0.0, 3.0), 0.0) << "s / 0 is defined as 0 (inverse degrees)";
  EXPECT_EQ(one(UnaryOp::ScalarDiv, kInf, 3.0), 0.0);
}

TEST(Numerics, BuildGraphKeepsNonFiniteUnlessAskedAndLoadersRefuseByDefault) {
  Coo<std::int32_t> c;
  c.rows = c.cols = 2;
  c.row = {0, 1};
  c.col = {1, 0};
  c.val = {kNaN, 1.0};
  BuildOptions strict;
  strict.allow_nonfinite = false;
  EXPECT_THROW((void)(build_graph<std::int32_t, double>(c, strict)), InvalidArgument);
  const auto g = build_graph<std::int32_t, double>(c);  // the builder's default keeps them
  EXPECT_TRUE(std::isnan(g.values()[0]));
}

TEST(Numerics, WeightedPageRankRefusesNaNWeights) {
  Coo<std::int32_t> c;
  c.rows = c.cols = 3;
  c.row = {0, 1, 2};
  c.col = {1, 2, 0};
  c.val = {1.0, kNaN, 1.0};
  const auto g = build_graph<std::int32_t, double>(c);
  PageRankOptions o;
  o.weighted = true;
  EXPECT_THROW((void)pagerank<double>(g, o), InvalidArgument);
  o.weighted = false;  // structure only: the NaN weight is irrelevant
  const auto r = pagerank<double>(g, o);
  for (int v = 0; v < 3; ++v) EXPECT_NEAR(r.ranks[v], 1.0 / 3, 1e-12);
}

TEST(Numerics, SsspTreatsANaNEdgeWeightAsAMissingEdge) {
  // Bellman-Ford over min_plus: a NaN weight makes a NaN candidate, which min ignores.
  Coo<std::int32_t> c;
  c.rows = c.cols = 4;
  c.row = {0, 0, 2, 1};
  c.col = {1, 2, 1, 3};
  c.val = {kNaN, 1.0, 1.0, kNaN};
  const auto g = build_graph<std::int32_t, double>(c);
  SsspOptions o;
  o.device = Device::Cpu;
  const auto r = sssp<double>(g, 0, o);
  EXPECT_EQ(r.distance[0], 0.0);
  EXPECT_EQ(r.distance[1], 2.0) << "the NaN edge 0->1 must not be taken";
  EXPECT_EQ(r.distance[2], 1.0);
  EXPECT_EQ(r.distance[3], kInf) << "the only edge into 3 is NaN: unreachable";
}

}  // namespace
}  // namespace spindle
