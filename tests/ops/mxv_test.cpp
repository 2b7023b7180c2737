// SPDX-License-Identifier: Apache-2.0
// mxv / vxm against a dense oracle: every semiring x value / index / graph value type x shape,
// transposes, masks, accumulators, replace, inputs with absent entries, and the error paths.
#include <gtest/gtest.h>

#include "ops_test_util.hpp"
#include "spindle/detail/transpose_builder.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/apply.hpp"
#include "spindle/ops/cpu/mxv_impl.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/reduce.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle {
namespace {

using test::DenseRef;
using test::MaskCase;
using test::RefVec;

enum class Op { Mxv, MxvT, Vxm, VxmT };
const Op kOps[] = {Op::Mxv, Op::MxvT, Op::Vxm, Op::VxmT};
const char* name(Op op) {
  switch (op) {
    case Op::Mxv:
      return "mxv";
    case Op::MxvT:
      return "mxv(A^T)";
    case Op::Vxm:
      return "vxm";
    case Op::VxmT:
      return "vxm(A^T)";
  }
  return "?";
}

// The matrix whose row i holds the terms of output i, indexed by input j.
DenseRef effective(const DenseRef& A, Op op) {
  return (op == Op::MxvT || op == Op::Vxm) ? A.transposed() : A;
}

template <class T, class V>
RefVec<T> oracle_t(SemiringKind kind, const DenseRef& E, const RefVec<T>& u) {
  RefVec<T> t;
  for (std::int64_t i = 0; i < E.rows; ++i) {
    std::vector<T> terms;
    for (std::int64_t j = 0; j < E.cols; ++j) {
      if (E.has(i, j) && u.p[j]) {
        terms.push_back(
            test::oracle_mul(kind, static_cast<T>(test::graph_value<V>(E, i, j)), u.v[j]));
      }
    }
    t.v.push_back(test::oracle_reduce(kind, terms));
    t.p.push_back(terms.empty() ? 0 : 1);
  }
  return t;
}

template <class S, class I, class V>
void run_op(Op op, Vector<typename S::value_type>& w, const Mask& mask, Accum accum,
            const Graph<I, V>& A, const Vector<typename S::value_type>& u, bool replace) {
  Descriptor d;
  d.replace = replace;
  d.transpose_a = (op == Op::MxvT || op == Op::VxmT);
  if (op == Op::Mxv || op == Op::MxvT) {
    mxv(w, mask, accum, S{}, A, u, d);
  } else {
    vxm(w, mask, accum, S{}, u, A, d);
  }
}

// One case: fresh u and w, run, compare with oracle_output(w, oracle_t).
template <class S, class I, class V>
void check_case(const DenseRef& ref, const Graph<I, V>& A, Op op, double u_absent,
                const MaskCase& mask, Accum accum, bool replace, std::uint64_t seed,
                const std::string& ctx) {
  using T = typename S::value_type;
  const DenseRef E = effective(ref, op);
  const Vector<T> u = test::random_vector<T>(E.cols, u_absent, seed);
  Vector<T> w = test::random_vector<T>(E.rows, 0.3, seed + 1);
  const RefVec<T> want = test::oracle_output(
      test::ref_of(w), oracle_t<T, V>(S::kind, E, test::ref_of(u)), mask, accum, replace);
  run_op<S>(op, w, mask.mask(), accum, A, u, replace);
  test::expect_matches(w, want, !test::is_plus_kind(S::kind),
                       ctx + " " + name(op) + " " + to_string(S::kind) + " " + mask.name() +
                           (replace ? " replace" : "") +
                           (accum.enabled ? std::string(" accum ") + to_string(accum.op) : ""));
}

TEST(Mxv, EverySemiringTypeAndShapeMatchesDenseOracle) {
  std::uint64_t seed = 1;
  test::for_each_type([&](auto t, auto i, auto v) {
    using T = decltype(t);
    using I = decltype(i);
    using V = decltype(v);
    for (const auto& shape : test::standard_shapes()) {
      const DenseRef ref = test::make_shape(shape, ++seed);
      const auto A = test::to_graph<I, V>(ref);
      const std::string ctx = std::string(to_string(value_kind_of<T>())) + "/" +
                              to_string(index_kind_of<I>()) + "/" + to_string(value_kind_of<V>()) +
                              " " + std::to_string(ref.rows) + "x" + std::to_string(ref.cols);
      for (SemiringKind kind : kBuiltinSemirings) {
        visit_semiring<T>(kind, [&](auto s) {
          using S = decltype(s);
          for (Op op : kOps) {
            for (double absent : {0.0, 0.35}) {
              check_case<S>(ref, A, op, absent, MaskCase{}, Accum::none(), false, ++seed,
                            ctx + (absent > 0 ? " sparse-u" : " full-u"));
            }
          }
        });
      }
    }
  });
}

TEST(Mxv, MasksAccumulatorsAndReplaceFollowGraphBlasRules) {
  std::uint64_t seed = 1000;
  const DenseRef ref = test::random_matrix(97, 83, 77);
  const SemiringKind kinds[] = {SemiringKind::PlusTimes, SemiringKind::MinPlus,
                                SemiringKind::AnyPair, SemiringKind::LorLand, SemiringKind::MaxMin};
  const Accum accums[] = {Accum::none(), Accum::plus(), Accum::min(),
                          Accum::with(BinaryOp::Second)};
  auto run = [&](auto t, auto v) {
    using T = decltype(t);
    using V = decltype(v);
    const auto A = test::to_graph<std::int32_t, V>(ref);
    for (SemiringKind kind : kinds) {
      visit_semiring<T>(kind, [&](auto s) {
        using S = decltype(s);
        for (Op op : kOps) {
          const std::int64_t out_n = effective(ref, op).rows;
          for (const MaskCase& mask : test::all_masks(out_n, ++seed)) {
            for (bool replace : {false, true}) {
              for (Accum accum : accums) {
                for (double absent : {0.0, 0.4}) {
                  check_case<S>(ref, A, op, absent, mask, accum, replace, ++seed,
                                std::string(to_string(value_kind_of<T>())) + "/" +
                                    to_string(value_kind_of<V>()));
                }
              }
            }
          }
        }
      });
    }
  };
  run(float{}, float{});
  run(float{}, Pattern{});
  run(double{}, double{});
  run(double{}, Pattern{});
}

TEST(Mxv, MaskBuiltFromTheOutputItselfReadsEntryValues) {
  // w<!struct(w)> = A u: only entries absent on entry may be written (the BFS pattern).
  const DenseRef ref = test::random_matrix(64, 64, 5);
  const auto A = test::to_graph<std::int64_t, Pattern>(ref);
  const Vector<double> u = test::random_vector<double>(64, 0.2, 6);
  Vector<double> w = test::random_vector<double>(64, 0.5, 7);
  MaskCase mc{MaskCase::Structural, true, Vector<float>(64)};
  for (std::int64_t i = 0; i < 64; ++i) {
    if (!w.present(i)) mc.m.remove(i);
  }
  const RefVec<double> want = test::oracle_output(
      test::ref_of(w), oracle_t<double, Pattern>(SemiringKind::PlusTimes, ref, test::ref_of(u)), mc,
      Accum::none(), false);
  mxv(w, Mask::structural(w, true), Accum::none(), semiring::plus_times<double>{}, A, u);
  test::expect_matches(w, want, false, "self-masked mxv");
}

TEST(Mxv, OutputOfWrongSizeIsResizedWhenNeitherMaskNorAccumReadsIt) {
  const DenseRef ref = test::random_matrix(30, 20, 9);
  const auto A = test::to_graph<std::int32_t, float>(ref);
  const Vector<float> u = test::random_vector<float>(20, 0.0, 10);
  Vector<float> w;
  mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u);
  ASSERT_EQ(w.size(), 30);
  test::expect_matches(w, oracle_t<float, float>(SemiringKind::PlusTimes, ref, test::ref_of(u)),
                       false, "resized w");
}

TEST(Mxv, ShapeErrorsThrowDimensionMismatchNamingBothSizes) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(30, 20, 11));
  const semiring::plus_times<float> s;
  Vector<float> w(30);
  try {
    mxv(w, Mask{}, Accum::none(), s, A, Vector<float>(21));
    FAIL() << "no exception";
  } catch (const DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("21"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("20"), std::string::npos) << e.what();
  }
  EXPECT_THROW(vxm(w, Mask{}, Accum::none(), s, Vector<float>(20), A), DimensionMismatch);
  Vector<float> w_bad(29);
  EXPECT_THROW(mxv(w_bad, Mask{}, Accum::plus(), s, A, Vector<float>(20)), DimensionMismatch);
  const Vector<float> m(31);
  EXPECT_THROW(mxv(w, Mask::value(m), Accum::none(), s, A, Vector<float>(20)), DimensionMismatch);
  EXPECT_THROW(
      mxv(w, Mask{}, Accum::none(), s, A, Vector<float>(20), Descriptor{}.with_transpose_a()),
      DimensionMismatch);
}

TEST(Mxv, InputAliasingOutputThrowsInvalidArgument) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(20, 20, 12));
  Vector<float> w(20, 1.0f);
  EXPECT_THROW(mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, w), InvalidArgument);
  EXPECT_THROW(vxm(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, w, A), InvalidArgument);
}

TEST(Mxv, CudaDeviceThrowsUnsupportedInCpuBuild) {
  // Also in a CUDA build on a machine without a GPU ("no CUDA device is visible").
  if (cuda_available()) GTEST_SKIP() << "a CUDA device is present";
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(20, 20, 13));
  Vector<float> w(20);
  const Vector<float> u(20, 1.0f);
  const Descriptor d = Descriptor{}.on(Device::Cuda);
  EXPECT_THROW(mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u, d), Unsupported);
  EXPECT_THROW(vxm(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, A, d), Unsupported);
  EXPECT_THROW((plan_for_mxv<semiring::plus_times<float>>(A, Mask{}, Accum::none(), d)),
               Unsupported);
  // Nothing to compute does not skip the check (the documented @throws holds for every shape).
  const auto E = test::to_graph<std::int32_t, float>(test::random_matrix(0, 0, 1));
  Vector<float> w0(0);
  const Vector<float> u0(0);
  EXPECT_THROW(mxv(w0, Mask{}, Accum::none(), semiring::plus_times<float>{}, E, u0, d),
               Unsupported);
  EXPECT_THROW(reduce(MonoidKind::Plus, u0, d), Unsupported);
  EXPECT_THROW(apply(w0, Mask{}, Accum::none(), Unary<float>::make(UnaryOp::Identity), u0, d),
               Unsupported);
}

TEST(Mxv, ForcedGpuKernelOnCpuFallsBackAndStillComputes) {
  const DenseRef ref = test::random_matrix(40, 40, 14);
  const auto A = test::to_graph<std::int32_t, double>(ref);
  const Descriptor d = Descriptor{}.on(Device::Cpu).force(MxvKernel::MergePath);
  const Plan p = plan_for_mxv<semiring::min_plus<double>>(A, Mask{}, Accum::none(), d);
  EXPECT_EQ(p.mxv, MxvKernel::CpuRowBalanced);
  EXPECT_FALSE(p.forced);
  EXPECT_NE(p.reason.find("fell back"), std::string::npos) << p.reason;
  EXPECT_NE(p.reason.find("merge_path"), std::string::npos) << p.reason;
  const Vector<double> u = test::random_vector<double>(40, 0.0, 15);
  Vector<double> w;
  mxv(w, Mask{}, Accum::none(), semiring::min_plus<double>{}, A, u, d);
  test::expect_matches(w, oracle_t<double, double>(SemiringKind::MinPlus, ref, test::ref_of(u)),
                       true, "fallback mxv");
  const Plan forced_cpu = plan_for_mxv<semiring::min_plus<double>>(
      A, Mask{}, Accum::none(), Descriptor{}.force(MxvKernel::CpuRowBalanced));
  EXPECT_TRUE(forced_cpu.forced);
  EXPECT_EQ(forced_cpu.device, Device::Cpu);
}

// On the CPU a vxm or a transposed mxv builds A^T on the host whatever builder a caller has
// installed on the thread (a backend's would sort on a GPU), and the caller's is back afterwards;
// the results match the oracle.
TEST(Mxv, CpuCallsBuildTheTransposeOnTheHost) {
  struct Counting final : detail::TransposeBuilder {
    using detail::TransposeBuilder::build;
    int calls = 0;
    bool build(const Graph<std::int32_t, float>&,
               detail::TransposeParts<std::int32_t, float>&) override {
      ++calls;
      return false;
    }
  } counting;
  const detail::ScopedTransposeBuilder installed(&counting);
  const DenseRef ref = test::random_matrix(30, 30, 16);
  const Vector<float> u = test::random_vector<float>(30, 0.0, 17);
  const Descriptor cpu = Descriptor{}.on(Device::Cpu);
  for (const Op op : {Op::Vxm, Op::MxvT}) {
    const auto A = test::to_graph<std::int32_t, float>(ref);
    Vector<float> w;
    if (op == Op::Vxm) {
      vxm(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, A, cpu);
    } else {
      mxv(w, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
          Descriptor(cpu).with_transpose_a());
    }
    EXPECT_TRUE(A.has_transpose()) << name(op);
    test::expect_matches(
        w, oracle_t<float, float>(SemiringKind::PlusTimes, ref.transposed(), test::ref_of(u)),
        false, name(op));
  }
  EXPECT_EQ(counting.calls, 0);
  EXPECT_EQ(detail::current_transpose_builder(), &counting);
}

// plan_for_vxm plans over the rows of A^T: the same plan as plan_for_mxv on a graph built from
// the transposed reference (an independent construction), on the CPU and, planned for a
// reference H100 whether or not a GPU is here, on CUDA. The matrix is skewed both ways (a dense
// row; power-law rows), so A's and A^T's statistics differ.
TEST(Mxv, PlanForVxmIsMxvsPlanOverTheTranspose) {
  const DenseRef ref = test::random_matrix(3000, 2000, 31);
  const auto A = test::to_graph<std::int32_t, float>(ref);
  const auto At = test::to_graph<std::int32_t, float>(ref.transposed());
  ASSERT_NE(A.stats().max_row, At.stats().max_row);
  using S = semiring::plus_times<float>;
  const DeviceCaps h100 = reference_hopper_caps();
  const Plan v = plan_for_vxm<S>(A, Mask{}, Accum::none(), Descriptor{}, h100);
  const Plan m = plan_for_mxv<S>(At, Mask{}, Accum::none(), Descriptor{}, h100);
  EXPECT_EQ(v.device, Device::Cuda);
  EXPECT_EQ(v.mxv, m.mxv) << v.reason << " / " << m.reason;
  EXPECT_EQ(v.params.lanes_per_row, m.params.lanes_per_row);
  EXPECT_EQ(v.params.items_per_worker, m.params.items_per_worker);
  EXPECT_EQ(v.params.block_threads, m.params.block_threads);
  EXPECT_EQ(v.params.tile, m.params.tile);
  // With desc.transpose_a, vxm over the graph At computes u (At^T) = u A: the same product as
  // vxm over A, so the same pull over A^T's rows and the same plan; mxv over A differs.
  const Plan vt = plan_for_vxm<S>(At, Mask{}, Accum::none(), Descriptor{}.with_transpose_a(), h100);
  EXPECT_EQ(vt.mxv, m.mxv) << vt.reason << " / " << m.reason;
  EXPECT_EQ(vt.params.lanes_per_row, m.params.lanes_per_row);
  const Plan ma = plan_for_mxv<S>(A, Mask{}, Accum::none(), Descriptor{}, h100);
  EXPECT_NE(ma.mxv, m.mxv) << ma.reason << " / " << m.reason;
  // Without a target: the device present here (the CPU on a machine without a GPU).
  const Plan cpu = plan_for_vxm<S>(A, Mask{}, Accum::none(), Descriptor{}.on(Device::Cpu));
  EXPECT_EQ(cpu.device, Device::Cpu);
  EXPECT_EQ(cpu.mxv, MxvKernel::CpuRowBalanced);
  EXPECT_NE(cpu.reason.find("vxm"), std::string::npos) << cpu.reason;
}

// What-if planning: the target decides for Auto, Cpu stays Cpu, Cuda needs a target GPU, and a
// forced kernel is honoured on the target as it would be on a real device.
TEST(Mxv, WhatIfPlanningFollowsTheTargetDevice) {
  const auto A = test::to_graph<std::int32_t, float>(test::random_matrix(500, 500, 32));
  using S = semiring::plus_times<float>;
  const DeviceCaps h100 = reference_hopper_caps();
  const DeviceCaps none{};
  for (const Plan& p :
       {plan_for_mxv<S>(A, Mask{}, Accum::none(), Descriptor{}, h100),
        plan_for_vxm<S>(A, Mask{}, Accum::none(), Descriptor{}, h100),
        plan_for_mxm<S>(A, 32, Descriptor{}, h100), plan_for_sddmm<S>(A, 32, Descriptor{}, h100)}) {
    EXPECT_EQ(p.device, Device::Cuda) << p.reason;
  }
  EXPECT_NE(plan_for_mxm<S>(A, 32, Descriptor{}, h100).mxm, MxmKernel::CpuRowBalanced);
  EXPECT_NE(plan_for_sddmm<S>(A, 32, Descriptor{}, h100).sddmm, SddmmKernel::CpuRowBalanced);
  for (const Plan& p :
       {plan_for_mxv<S>(A, Mask{}, Accum::none(), Descriptor{}, none),
        plan_for_mxv<S>(A, Mask{}, Accum::none(), Descriptor{}.on(Device::Cpu), h100),
        plan_for_mxm<S>(A, 32, Descriptor{}, none),
        plan_for_sddmm<S>(A, 32, Descriptor{}.on(Device::Cpu), h100)}) {
    EXPECT_EQ(p.device, Device::Cpu) << p.reason;
  }
  const Descriptor cuda = Descriptor{}.on(Device::Cuda);
  EXPECT_THROW((plan_for_mxv<S>(A, Mask{}, Accum::none(), cuda, none)), InvalidArgument);
  EXPECT_THROW((plan_for_vxm<S>(A, Mask{}, Accum::none(), cuda, none)), InvalidArgument);
  EXPECT_THROW((plan_for_mxm<S>(A, 8, cuda, none)), InvalidArgument);
  EXPECT_THROW((plan_for_sddmm<S>(A, 8, cuda, none)), InvalidArgument);
  try {
    plan_for_mxm<S>(A, 8, cuda, none);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("plan_for_mxm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reference_hopper_caps"), std::string::npos) << e.what();
  }
  const Plan forced = plan_for_mxv<S>(
      A, Mask{}, Accum::none(), Descriptor{}.on(Device::Cuda).force(MxvKernel::MergePath), h100);
  EXPECT_EQ(forced.mxv, MxvKernel::MergePath);
  EXPECT_TRUE(forced.forced);
}

// A user-defined semiring whose mul does not commute: mul(a, b) = 10a + b.
struct affine_plus {
  using value_type = double;
  static constexpr SemiringKind kind = SemiringKind::Custom;
  static constexpr bool has_terminal = false;
  static constexpr double identity() { return 0.0; }
  static constexpr double terminal() { return 0.0; }
  static constexpr double add(double a, double b) { return a + b; }
  static constexpr double mul(double a, double b) { return 10.0 * a + b; }
};

TEST(Mxv, UserDefinedSemiringRunsOnCpuHeadersWithOperandOrderKept) {
  const DenseRef ref = test::random_matrix(35, 25, 16);
  const auto A = test::to_graph<std::int32_t, float>(ref);
  const Vector<double> u_row = test::random_vector<double>(25, 0.3, 17);
  const Vector<double> u_col = test::random_vector<double>(35, 0.3, 18);
  Vector<double> w1;
  Vector<double> w2;
  cpu::mxv(w1, Mask{}, Accum::none(), affine_plus{}, A, u_row);
  cpu::vxm(w2, Mask{}, Accum::none(), affine_plus{}, u_col, A);
  for (std::int64_t i = 0; i < 35; ++i) {  // mxv: mul(A(i,j), u(j))
    double s = 0;
    bool any = false;
    for (std::int64_t j = 0; j < 25; ++j) {
      if (ref.has(i, j) && u_row.present(j)) {
        s += 10.0 * ref.at(i, j) + u_row[j];
        any = true;
      }
    }
    ASSERT_EQ(w1.present(i), any) << i;
    if (any) {
      EXPECT_NEAR(w1[i], s, 1e-9) << i;
    }
  }
  for (std::int64_t j = 0; j < 25; ++j) {  // vxm: mul(u(i), A(i,j))
    double s = 0;
    bool any = false;
    for (std::int64_t i = 0; i < 35; ++i) {
      if (ref.has(i, j) && u_col.present(i)) {
        s += 10.0 * u_col[i] + ref.at(i, j);
        any = true;
      }
    }
    ASSERT_EQ(w2.present(j), any) << j;
    if (any) {
      EXPECT_NEAR(w2[j], s, 1e-9) << j;
    }
  }
}

}  // namespace
}  // namespace spindle
