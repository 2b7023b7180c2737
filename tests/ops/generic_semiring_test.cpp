// SPDX-License-Identifier: Apache-2.0
// The generic path on the CPU side: the run-time operator codes compute what each built-in
// semiring's trait computes, the planner sends semirings without specialized CUDA kernels (and
// user-defined ones) to the generic kernels with a reason that says so, and user-defined
// semirings run through the public entry points. No GPU needed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/core/planner.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/executor.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/ops/sddmm.hpp"

namespace spindle {
namespace {

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

template <class T>
void check_codes_match_traits() {
  const T inf = std::numeric_limits<T>::infinity();
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const std::vector<T> values = {T(0), T(1), T(-1), T(2.5), T(-0.0), inf, -inf, nan, T(1e30)};
  for (SemiringKind k : kBuiltinSemirings) {
    visit_semiring<T>(k, [&](auto s) {
      using S = decltype(s);
      const RuntimeSemiring<T> r = runtime_semiring<T>(k);
      for (T a : values) {
        for (T b : values) {
          EXPECT_TRUE(same_value(r.add(a, b), S::add(a, b)))
              << to_string(k) << " add(" << a << ", " << b << ")";
          EXPECT_TRUE(same_value(r.mul(a, b), S::mul(a, b)))
              << to_string(k) << " mul(" << a << ", " << b << ")";
        }
      }
    });
  }
}

TEST(GenericSemiring, RunTimeCodesComputeWhatEachBuiltinTraitComputes) {
  check_codes_match_traits<float>();
  check_codes_match_traits<double>();
}

GraphStats skewed_stats() {
  GraphStats s;
  s.rows = 1 << 20;
  s.cols = 1 << 20;
  s.nnz = 16 << 20;
  s.avg_row = 16.0;
  s.stdv_row = 140.0;
  s.max_row = 40000;
  return s;
}

TEST(GenericSemiring, SemiringsWithoutSpecializedKernelsArePlannedGeneric) {
  const GraphStats st = skewed_stats();
  int generic = 0;
  for (SemiringKind k : kBuiltinSemirings) {
    SCOPED_TRACE(to_string(k));
    const detail::MxvInfo info =
        detail::plain_mxv_info(k, ValueKind::Float, ValueKind::Float, IndexKind::Int32);
    const Plan p = detail::plan_mxv_cuda(st, info, reference_hopper_caps(), Descriptor{});
    if (detail::cuda_precompiled(OpKind::Mxv, k)) {
      EXPECT_NE(p.mxv, MxvKernel::Generic) << p.describe();
      continue;
    }
    ++generic;
    EXPECT_EQ(p.mxv, MxvKernel::Generic) << p.describe();
    EXPECT_NE(p.reason.find("not precompiled"), std::string::npos) << p.reason;
    EXPECT_NE(p.reason.find("SPINDLE_CUDA_SEMIRINGS"), std::string::npos) << p.reason;
    // Skewed rows: 32 lanes, the longest rows one block each.
    EXPECT_EQ(p.params.lanes_per_row, 32);
    EXPECT_GT(p.params.items_per_worker, 0);
    EXPECT_LT(p.params.items_per_worker, st.max_row);
    // A forced specialized kernel cannot run it: the generic plan stays, and says why.
    Descriptor d;
    d.force(MxvKernel::RowBlock);
    const Plan f = detail::plan_mxv_cuda(st, info, reference_hopper_caps(), d);
    EXPECT_EQ(f.mxv, MxvKernel::Generic) << f.describe();
    EXPECT_NE(f.reason.find("no specialized kernels"), std::string::npos) << f.reason;
  }
  // The default build precompiles six of the ten for mxv.
  if (std::string(detail::kCudaMxvSemirings) ==
      "plus_times, min_plus, min_times, lor_land, any_pair, plus_pair") {
    EXPECT_EQ(generic, 4);
  }
}

TEST(GenericSemiring, ForcedGenericRunsAnyBuiltinAndEachOpHasAGenericPlan) {
  const GraphStats st = skewed_stats();
  Descriptor d;
  d.force(MxvKernel::Generic).force(MxmKernel::Generic).force(SddmmKernel::Generic);
  const detail::MxvInfo info = detail::plain_mxv_info(SemiringKind::PlusTimes, ValueKind::Float,
                                                      ValueKind::Float, IndexKind::Int32);
  const Plan mv = detail::plan_mxv_cuda(st, info, reference_hopper_caps(), d);
  EXPECT_EQ(mv.mxv, MxvKernel::Generic);
  EXPECT_TRUE(mv.forced);
  detail::MxmInfo mi;
  mi.n = 48;
  const Plan mm = detail::plan_mxm_cuda(st, mi, reference_hopper_caps(), d);
  EXPECT_EQ(mm.mxm, MxmKernel::Generic);
  EXPECT_EQ(mm.params.lanes_per_row, 16);  // 48 columns, 4 per lane
  detail::SddmmInfo si;
  si.k = 20;
  const Plan sd = detail::plan_sddmm_cuda(st, si, reference_hopper_caps(), d);
  EXPECT_EQ(sd.sddmm, SddmmKernel::Generic);
  EXPECT_EQ(sd.params.lanes_per_row, 32);
  // Not precompiled for SpMM (max_plus): generic, with a reason.
  mi.semiring = SemiringKind::MaxPlus;
  mi.precompiled = detail::cuda_precompiled(OpKind::Mxm, SemiringKind::MaxPlus);
  if (!mi.precompiled) {
    const Plan g = detail::plan_mxm_cuda(st, mi, reference_hopper_caps(), Descriptor{});
    EXPECT_EQ(g.mxm, MxmKernel::Generic) << g.describe();
    EXPECT_NE(g.reason.find("not precompiled for mxm"), std::string::npos) << g.reason;
  }
}

// A user-defined semiring: (max, min) over double, kind Custom.
struct widest_path {
  using value_type = double;
  static constexpr SemiringKind kind = SemiringKind::Custom;
  static constexpr bool has_terminal = false;
  SPINDLE_HD static constexpr double identity() { return -1.0; }
  SPINDLE_HD static constexpr double terminal() { return -1.0; }
  SPINDLE_HD static constexpr double add(double a, double b) { return a < b ? b : a; }
  SPINDLE_HD static constexpr double mul(double a, double b) { return a < b ? a : b; }
};

Graph<std::int32_t, double> small_graph() {
  Coo<std::int32_t> c;
  c.rows = 4;
  c.cols = 4;
  c.row = {0, 0, 1, 2, 3};
  c.col = {1, 2, 2, 3, 0};
  c.val = {3.0, 1.0, 2.0, 5.0, 4.0};
  return build_graph<std::int32_t, double>(c);
}

TEST(GenericSemiring, UserSemiringsRunThroughThePublicEntriesAndPlanGenericOnCuda) {
  const auto A = small_graph();
  Vector<double> u(4);
  for (int i = 0; i < 4; ++i) u[i] = 1.0 + i;
  // The public entry on the CPU equals the CPU template's result.
  Vector<double> w1(4), w2(4);
  mxv(w1, Mask{}, Accum::none(), widest_path{}, A, u, Descriptor().on(Device::Cpu));
  cpu::mxv(w2, Mask{}, Accum::none(), widest_path{}, A, u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(w1[i], w2[i]) << i;
  EXPECT_EQ(w1[0], 2.0);  // max(min(3, u1 = 2), min(1, u2 = 3))
  // Auto without registered CUDA kernels runs on the CPU.
  Vector<double> w3(4);
  mxv(w3, Mask{}, Accum::none(), widest_path{}, A, u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(w3[i], w1[i]) << i;
  // vxm, mxm and sddmm too.
  Vector<double> v1(4);
  vxm(v1, Mask{}, Accum::none(), widest_path{}, u, A, Descriptor().on(Device::Cpu));
  EXPECT_EQ(v1[2], 2.0);  // max(min(u0 = 1, 1), min(u1 = 2, 2))
  DenseMatrix<double> B(4, 3, 2.0), C;
  mxm(C, Accum::none(), widest_path{}, A, B, Descriptor().on(Device::Cpu));
  EXPECT_EQ(C(0, 0), 2.0);
  std::vector<double> out;
  sddmm(out, Accum::none(), widest_path{}, A, DenseMatrix<double>(4, 2, 7.0),
        DenseMatrix<double>(4, 2, 6.0), Descriptor().on(Device::Cpu));
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0], 3.0);  // min(S(0,1) = 3, max(min(7, 6), min(7, 6)) = 6)
  // Planned for a CUDA device: the generic kernels, "a user-defined semiring".
  const Plan p = plan_for_mxv<widest_path>(A, Mask{}, Accum::none(), Descriptor().on(Device::Cuda),
                                           reference_hopper_caps());
  EXPECT_EQ(p.mxv, MxvKernel::Generic) << p.describe();
  EXPECT_NE(p.reason.find("user-defined semiring"), std::string::npos) << p.reason;
  const Plan pm =
      plan_for_mxm<widest_path>(A, 16, Descriptor().on(Device::Cuda), reference_hopper_caps());
  EXPECT_EQ(pm.mxm, MxmKernel::Generic) << pm.describe();
  // Asked for CUDA without its kernels (or without CUDA at all): Unsupported, naming the macro
  // where a device exists.
  if (!built_with_cuda() || !cuda_available()) {
    Vector<double> w4(4);
    EXPECT_THROW(mxv(w4, Mask{}, Accum::none(), widest_path{}, A, u, Descriptor().on(Device::Cuda)),
                 Unsupported);
  } else {
    Vector<double> w4(4);
    try {
      mxv(w4, Mask{}, Accum::none(), widest_path{}, A, u, Descriptor().on(Device::Cuda));
      ADD_FAILURE() << "an unregistered user semiring ran on CUDA";
    } catch (const Unsupported& e) {
      EXPECT_NE(std::string(e.what()).find("SPINDLE_CUDA_SEMIRING"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace spindle
