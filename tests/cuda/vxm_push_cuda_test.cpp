// SPDX-License-Identifier: Apache-2.0
// vxm as a push (push_scatter: ops/cuda/mxv/push_scatter.cuh) against the CPU backend: every
// semiring with a push monoid, float / double, int32 / int64, values / pattern, inputs from one
// present entry to full, masks / accumulators / replace, NaN and signed zeros among the terms, and
// the graph shapes that stress its load balance (one row spread over many tiles, tiles spanning
// many short rows, empty rows). Outputs are poisoned before each run. The input count the
// planner reads is checked against a naive count, and BFS / SSSP on CUDA (where the planner mixes
// push and pull levels) against the CPU backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/vxm_push.hpp"
#include "spindle/algorithms/bfs.hpp"
#include "spindle/algorithms/sssp.hpp"
#include "spindle/detail/cuda_semirings.hpp"
#include "spindle/error.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

namespace spindle {
namespace {

using cuda_test::Family;
using cuda_test::make_graph;
using cuda_test::random_vector;

Plan push_plan() {
  Plan p;
  p.op = OpKind::Vxm;
  p.device = Device::Cuda;
  p.mxv = MxvKernel::PushScatter;
  p.forced = true;
  return p;
}

// w<mask> = accum(w, u ⊕.⊗ A) on the CPU backend, and by the push on CUDA.
template <class S, class I, class V>
::testing::AssertionResult push_matches_cpu(const Graph<I, V>& A,
                                            const Vector<typename S::value_type>& u,
                                            const Vector<typename S::value_type>& w0,
                                            const Mask& mask = Mask{}, Accum accum = Accum::none(),
                                            bool replace = false) {
  using T = typename S::value_type;
  Vector<T> want = w0, got = w0;
  vxm(want, mask, accum, S{}, u, A, Descriptor().on(Device::Cpu).with_replace(replace));
  {
    cuda_test::PoisonOutputs poison;
    const detail::PushInput in = detail::cuda::vxm_push_input(u, A);
    if constexpr (detail::cuda_precompiled(OpKind::Vxm, S::kind)) {
      detail::cuda::vxm_push<S>(push_plan(), in, got, mask, accum, u, A, replace);
    } else {
      // Not precompiled in this build: the push entry refuses, and vxm on CUDA pulls through
      // the generic kernels instead; that result must match too.
      Vector<T> unused = w0;
      try {
        detail::cuda::vxm_push<S>(push_plan(), in, unused, mask, accum, u, A, replace);
        return ::testing::AssertionFailure()
               << "the push ran " << to_string(S::kind) << ", which this build did not precompile";
      } catch (const Unsupported&) {
      }
      vxm(got, mask, accum, S{}, u, A, Descriptor().on(Device::Cuda).with_replace(replace));
    }
  }
  auto r = cuda_test::same_result(got, want, /*exact=*/true);
  if (!r) {
    r << " [semiring " << to_string(S::kind) << ", T " << to_string(value_kind_of<T>()) << ", V "
      << to_string(value_kind_of<V>()) << ", I " << to_string(index_kind_of<I>()) << ", "
      << u.nvals() << " of " << u.size() << " inputs present]";
  }
  return r;
}

// Every push semiring over A with inputs of several densities (and no mask).
template <class T, class I, class V>
void check_semirings(const Graph<I, V>& A, std::uint64_t seed, const std::string& what) {
  const Vector<T> w0(A.cols(), T(0));
  for (const double absent : {0.0, 0.5, 0.97, 0.9995}) {
    const auto u = random_vector<T>(A.rows(), absent, seed++);
    EXPECT_TRUE((push_matches_cpu<semiring::min_plus<T>>(A, u, w0)))
        << what << " absent " << absent;
    EXPECT_TRUE((push_matches_cpu<semiring::max_plus<T>>(A, u, w0)))
        << what << " absent " << absent;
    EXPECT_TRUE((push_matches_cpu<semiring::min_times<T>>(A, u, w0))) << what;
    EXPECT_TRUE((push_matches_cpu<semiring::max_times<T>>(A, u, w0))) << what;
    EXPECT_TRUE((push_matches_cpu<semiring::max_min<T>>(A, u, w0))) << what;
    EXPECT_TRUE((push_matches_cpu<semiring::lor_land<T>>(A, u, w0))) << what;
    EXPECT_TRUE((push_matches_cpu<semiring::any_pair<T>>(A, u, w0))) << what;
  }
}

template <class I>
void check_family(Family f, std::int64_t n, std::int64_t cols, std::uint64_t seed) {
  const std::string what = cuda_test::family_name(f);
  check_semirings<float>(make_graph<I, float>(f, n, cols, seed), seed + 1, what + " float");
  check_semirings<double>(make_graph<I, Pattern>(f, n, cols, seed), seed + 2, what + " pattern");
}

TEST(VxmPush, MatchesCpuOnPowerLawRows) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::PowerLaw, 3001, 2777, 21);
  check_family<std::int64_t>(Family::PowerLaw, 3001, 2777, 22);
}

TEST(VxmPush, MatchesCpuWhenOneRowSpreadsOverManyTiles) {
  SPINDLE_REQUIRE_CUDA();
  // One row of 19997 entries (20 tiles of 1024 terms) among rows of 0..3.
  check_family<std::int32_t>(Family::HugeRow, 20011, 19997, 23);
  check_family<std::int32_t>(Family::DenseRow, 6007, 6007, 24);
}

TEST(VxmPush, MatchesCpuOnTilesOfManyShortRowsAndEmptyRuns) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::EmptyRuns, 4099, 1999, 25);
  check_family<std::int64_t>(Family::Uniform, 2053, 2053, 26);
  check_family<std::int32_t>(Family::LongRows, 1237, 977, 27);
}

TEST(VxmPush, MatchesCpuOnAGraphWithoutEntriesAndAnEmptyInput) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::NoEntries, 500, 300, 28);
  check_semirings<float>(A, 29, "no entries");
  const auto B = make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 2777, 30);
  const Vector<float> none = Vector<float>::empty(B.rows());
  Vector<float> w0(B.cols(), 5.0f);
  w0.remove(7);
  EXPECT_TRUE((push_matches_cpu<semiring::min_plus<float>>(B, none, w0)));
  EXPECT_TRUE((push_matches_cpu<semiring::min_plus<float>>(B, none, w0, Mask{}, Accum::min())));
}

TEST(VxmPush, MasksAccumulatorsAndReplaceMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 5003, 4001, 31);
  const auto u = random_vector<float>(A.rows(), 0.8, 32);
  auto w0 = random_vector<float>(A.cols(), 0.3, 33);
  const auto mv = random_vector<float>(A.cols(), 0.5, 34);
  Vector<float> mvals = mv;
  for (std::int64_t i = 0; i < mvals.size(); i += 3) {
    if (mvals.present(i)) mvals[i] = 0.0f;  // present but zero: selects under structure only
  }
  const Mask masks[] = {Mask{}, Mask::structural(mv), Mask::structural(mv, true),
                        Mask::value(mvals), Mask::value(mvals, true)};
  const Accum accums[] = {Accum::none(), Accum::min(), Accum::plus()};
  int c = 0;
  for (const Mask& m : masks) {
    for (const Accum& acc : accums) {
      for (const bool replace : {false, true}) {
        EXPECT_TRUE((push_matches_cpu<semiring::min_plus<float>>(A, u, w0, m, acc, replace)))
            << "case " << c;
        EXPECT_TRUE((push_matches_cpu<semiring::any_pair<float>>(A, u, w0, m, acc, replace)))
            << "case " << c;
        EXPECT_TRUE((push_matches_cpu<semiring::lor_land<float>>(A, u, w0, m, acc, replace)))
            << "case " << c;
        EXPECT_TRUE((push_matches_cpu<semiring::max_times<float>>(A, u, w0, m, acc, replace)))
            << "case " << c;
        ++c;
      }
    }
  }
}

TEST(VxmPush, NaNTermsAreIgnoredAndInfinitiesKept) {
  SPINDLE_REQUIRE_CUDA();
  // Rows 0..n-1 each point at column i % 13: many terms per output, some NaN (u(i) NaN), some
  // infinite, negative values; min / max ignore the NaN terms as the pull's fold does.
  const std::int64_t n = 4000, m = 13;
  std::vector<std::int32_t> rp(n + 1), ci(n);
  std::vector<float> val(n);
  for (std::int64_t i = 0; i < n; ++i) {
    rp[i + 1] = static_cast<std::int32_t>(i + 1);
    ci[i] = static_cast<std::int32_t>(i % m);
    val[i] = static_cast<float>((i % 7) - 3) * 0.5f;
  }
  const Graph<std::int32_t, float> A(static_cast<std::int32_t>(n), static_cast<std::int32_t>(m), rp,
                                     ci, val);
  Vector<float> u(n);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    u[i] = (i % 5 == 0) ? nan : (i % 11 == 0 ? -inf : static_cast<float>(i % 17) - 8.0f);
  }
  // Column 12 gets only NaN terms: present with the identity.
  for (std::int64_t i = 12; i < n; i += m) u[i] = nan;
  const Vector<float> w0(m, 0.0f);
  EXPECT_TRUE((push_matches_cpu<semiring::min_plus<float>>(A, u, w0)));
  EXPECT_TRUE((push_matches_cpu<semiring::max_plus<float>>(A, u, w0)));
  EXPECT_TRUE((push_matches_cpu<semiring::min_times<float>>(A, u, w0)));
  EXPECT_TRUE((push_matches_cpu<semiring::max_min<float>>(A, u, w0)));
  EXPECT_TRUE((push_matches_cpu<semiring::lor_land<float>>(A, u, w0)));
}

TEST(VxmPush, ResultsAreTheSameBitsRunToRun) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::HugeRow, 20011, 19997, 35);
  const auto u = random_vector<float>(A.rows(), 0.5, 36);
  Vector<float> first;
  for (int run = 0; run < 4; ++run) {
    Vector<float> w(A.cols(), 0.0f);
    detail::cuda::vxm_push<semiring::min_times<float>>(
        push_plan(), detail::cuda::vxm_push_input(u, A), w, Mask{}, Accum::none(), u, A, false);
    w.sync_to_host();
    if (run == 0) {
      first = w;
    } else {
      EXPECT_EQ(w.values(), first.values()) << "run " << run;
    }
  }
}

TEST(VxmPush, InputCountMatchesANaiveCount) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int64_t, Pattern>(Family::EmptyRuns, 40009, 3001, 37);
  for (const double absent : {0.0, 0.6, 1.0}) {
    const auto u = random_vector<double>(A.rows(), absent, 38);
    detail::PushInput want;
    for (std::int64_t i = 0; i < A.rows(); ++i) {
      if (!u.present(i)) continue;
      ++want.present;
      const std::int64_t len = A.row_length(static_cast<std::int64_t>(i));
      want.sources += len > 0 ? 1 : 0;
      want.edges += len;
    }
    const detail::PushInput got = detail::cuda::vxm_push_input(u, A);
    EXPECT_EQ(got.present, want.present) << absent;
    EXPECT_EQ(got.sources, want.sources) << absent;
    EXPECT_EQ(got.edges, want.edges) << absent;
  }
}

TEST(VxmPush, PlusMonoidsRefuseThePushAndTheForcedCallPulls) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 2777, 39);
  const auto u = random_vector<float>(A.rows(), 0.9, 40);
  Vector<float> w(A.cols(), 0.0f);
  EXPECT_THROW(
      (detail::cuda::vxm_push<semiring::plus_times<float>>(
          push_plan(), detail::cuda::vxm_push_input(u, A), w, Mask{}, Accum::none(), u, A, false)),
      Unsupported);
  // Through the public entry the forced push falls back (logged) and the result is the pull's.
  Vector<float> want, got;
  vxm(want, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, A,
      Descriptor().on(Device::Cpu));
  vxm(got, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, A,
      Descriptor().on(Device::Cuda).force(MxvKernel::PushScatter));
  EXPECT_TRUE(cuda_test::same_result(got, want, false));
}

TEST(VxmPush, ManyTilesPerBlockMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  // Three blocks for ~20 tiles: each block walks its tiles in turn (the grid-stride loop).
  const auto A = make_graph<std::int32_t, float>(Family::HugeRow, 20011, 19997, 45);
  const auto saved = detail::cuda::push_scatter_max_blocks.load();
  detail::cuda::push_scatter_max_blocks = 3;
  check_semirings<float>(A, 46, "3 blocks");
  detail::cuda::push_scatter_max_blocks = 1;
  check_semirings<float>(A, 47, "1 block");
  detail::cuda::push_scatter_max_blocks = saved;
}

TEST(VxmPush, ATieOfSignedZerosResolvesBySign) {
  SPINDLE_REQUIRE_CUDA();
  // Two rows into column 0 with terms +0 and -0 (min_times: 1 * u(i)). The pull keeps the first
  // in row order (+0); the push's key order puts -0 below +0 (docs/numerics.md), and max the
  // other way round. Equal as numbers either way.
  const Graph<std::int32_t, float> A(2, 1, {0, 1, 2}, {0, 0}, {1.0f, 1.0f});
  Vector<float> u(2);
  u[0] = 0.0f;
  u[1] = -0.0f;
  Vector<float> pull, push_min, push_max;
  vxm(pull, Mask{}, Accum::none(), semiring::min_times<float>{}, u, A,
      Descriptor().on(Device::Cpu));
  push_min = Vector<float>::empty(1);
  push_max = Vector<float>::empty(1);
  detail::cuda::vxm_push<semiring::min_times<float>>(push_plan(),
                                                     detail::cuda::vxm_push_input(u, A), push_min,
                                                     Mask{}, Accum::none(), u, A, false);
  ASSERT_TRUE(pull.present(0) && push_min.present(0));
  EXPECT_FALSE(std::signbit(pull[0]));
  EXPECT_TRUE(std::signbit(push_min[0]));
  // max puts +0 above -0. The push runs only the semirings precompiled for vxm; max_times is not
  // one unless the build adds it (SPINDLE_CUDA_SEMIRINGS); otherwise the push refuses it.
  if constexpr (detail::cuda_precompiled(OpKind::Vxm, SemiringKind::MaxTimes)) {
    detail::cuda::vxm_push<semiring::max_times<float>>(push_plan(),
                                                       detail::cuda::vxm_push_input(u, A), push_max,
                                                       Mask{}, Accum::none(), u, A, false);
    ASSERT_TRUE(push_max.present(0));
    EXPECT_FALSE(std::signbit(push_max[0]));
  } else {
    EXPECT_THROW(detail::cuda::vxm_push<semiring::max_times<float>>(
                     push_plan(), detail::cuda::vxm_push_input(u, A), push_max, Mask{},
                     Accum::none(), u, A, false),
                 Unsupported);
  }
  EXPECT_EQ(push_min[0], pull[0]);
}

TEST(VxmPush, PublicVxmMatchesCpuWhetherThePlannerPushesOrPulls) {
  SPINDLE_REQUIRE_CUDA();
  // A square power-law graph of ~6e5 entries, above kPushMinNnz. A fresh copy has no transpose:
  // every input that is not full pushes and none is built. Over A, whose transpose the CPU call
  // builds, the planner's rules decide (at this size: the pull).
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 41);
  ASSERT_GE(A.nnz(), detail::kPushMinNnz);
  int pushed = 0, pulled = 0;
  for (const double absent : {0.9995, 0.99, 0.9, 0.5}) {
    const auto fresh = make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 41);
    const auto u = random_vector<float>(A.rows(), absent, 42);
    const Mask m = Mask::structural(u, true);
    Vector<float> first = Vector<float>::empty(A.cols());
    {
      cuda_test::PoisonOutputs poison;
      vxm(first, m, Accum::none(), semiring::min_plus<float>{}, u, fresh,
          Descriptor().on(Device::Cuda));
    }
    EXPECT_FALSE(fresh.has_transpose()) << absent;
    ++pushed;  // the fresh copy's call pushed: it would have built the transpose to pull
    Vector<float> want = Vector<float>::empty(A.cols()), got = Vector<float>::empty(A.cols());
    vxm(want, m, Accum::none(), semiring::min_plus<float>{}, u, A, Descriptor().on(Device::Cpu));
    ASSERT_TRUE(A.has_transpose());
    detail::MxvInfo info;
    info.op = OpKind::Vxm;
    info.semiring = SemiringKind::MinPlus;
    info.input_full = u.is_full();
    const bool pushes =
        detail::plan_vxm_push_cuda(A.stats(), info, detail::cuda::vxm_push_input(u, A), true, {})
            .push;
    (pushes ? pushed : pulled)++;
    {
      cuda_test::PoisonOutputs poison;
      vxm(got, m, Accum::none(), semiring::min_plus<float>{}, u, A, Descriptor().on(Device::Cuda));
    }
    EXPECT_TRUE(cuda_test::same_result(first, want, true)) << "absent " << absent << " (fresh)";
    EXPECT_TRUE(cuda_test::same_result(got, want, true))
        << "absent " << absent << (pushes ? " (push)" : " (pull)");
  }
  EXPECT_GT(pushed, 0);
  EXPECT_GT(pulled, 0);
}

TEST(VxmPush, BfsAndSsspOnCudaMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  // Square power-law graphs above kPushMinNnz (pattern for BFS, which would otherwise work on a
  // pattern copy of its own). Fresh copies have no transpose when CUDA runs first, so every level
  // pushes and none is built; over A and Av the CPU runs first (its vxm builds the transpose), so
  // the planner's rules decide (at this size the pull; levels that mix both on R-MAT 22 are in
  // docs/design/mxv.md).
  const auto A = make_graph<std::int32_t, Pattern>(Family::PowerLaw, 4001, 4001, 43);
  const auto Av = make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 43);
  for (const std::int64_t source : {0, 17, 4000}) {
    const auto fresh = make_graph<std::int32_t, Pattern>(Family::PowerLaw, 4001, 4001, 43);
    const auto fresh_v = make_graph<std::int32_t, float>(Family::PowerLaw, 4001, 4001, 43);
    BfsOptions o;
    o.parents = true;
    o.device = Device::Cuda;
    const BfsResult pushed = bfs(fresh, source, o);
    EXPECT_FALSE(fresh.has_transpose());
    SsspOptions so;
    so.device = Device::Cuda;
    const auto dpushed = sssp<float>(fresh_v, source, so);
    EXPECT_FALSE(fresh_v.has_transpose());
    o.device = Device::Cpu;
    const BfsResult want = bfs(A, source, o);
    so.device = Device::Cpu;
    const auto dw = sssp<float>(Av, source, so);
    ASSERT_TRUE(A.has_transpose() && Av.has_transpose());
    o.device = Device::Cuda;
    const BfsResult mixed = bfs(A, source, o);
    so.device = Device::Cuda;
    const auto dmixed = sssp<float>(Av, source, so);
    for (const BfsResult* got : {&pushed, &mixed}) {
      EXPECT_EQ(got->level, want.level) << source;
      EXPECT_EQ(got->parent, want.parent) << source;
    }
    for (const auto* got : {&dpushed, &dmixed}) {
      EXPECT_EQ(got->reached, dw.reached) << source;
      EXPECT_TRUE(cuda_test::same_result(got->distance, dw.distance, true)) << source;
    }
  }
}

TEST(VxmPush, MatchesCpuOnTheDataFolderGraphs) {
  SPINDLE_REQUIRE_CUDA();
  const std::string dir = std::string(SPINDLE_DATA_DIR) + "/graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no data folder at " << dir;
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    Graph<std::int32_t, float> A;
    try {
      A = load_graph<std::int32_t, float>(e.path().string()).graph;
    } catch (const std::exception&) {
      continue;  // the loaders' own tests cover what they refuse
    }
    check_semirings<float>(A, 44, e.path().filename().string());
    ++checked;
  }
  EXPECT_GT(checked, 5);
}

}  // namespace
}  // namespace spindle
