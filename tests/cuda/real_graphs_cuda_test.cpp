// SPDX-License-Identifier: Apache-2.0
// Every CUDA mxv kernel against the CPU backend on the real graphs of the shared data folder
// (plus_times, min_plus and any_pair; int32 and int64; weighted and pattern).
#include <gtest/gtest.h>

#include <algorithm>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops/mxv.hpp"

namespace spindle {
namespace {

const char* const kGraphs[] = {"1138_bus.mtx",  "bcsstk13.mtx",      "cryg2500.mtx",
                               "jagmesh7.mtx",  "lp_afiro.mtx",      "west0067.mtx",
                               "karate.mtx",    "chesapeake.mtx",    "cugraph_dolphins.mtx",
                               "as20graph.txt", "email-Eu-core.csv", "C-elegans-frontal.txt"};

// A forced plan of kernel k with the given items per worker and tile, finalized for S's plain
// call over A. Returns finalize's refusal, empty when the plan can run.
template <class S, class I, class V>
std::string finalize_forced(Plan& p, MxvKernel k, std::int64_t items, int tile,
                            const Graph<I, V>& A) {
  using T = typename S::value_type;
  p = Plan{};
  p.op = OpKind::Mxv;
  p.device = Device::Cuda;
  p.mxv = k;
  p.params.items_per_worker = items;
  p.params.tile = tile;
  p.forced = true;
  return detail::finalize_mxv_cuda(
      p, A.stats(),
      detail::plain_mxv_info(S::kind, value_kind_of<T>(), value_kind_of<V>(), index_kind_of<I>()),
      device_caps());
}

// Runs plan p on poisoned outputs and compares with the CPU's answer.
template <class S, class I, class V, class T>
void expect_plan_matches(const Plan& p, const Graph<I, V>& A, const Vector<T>& u,
                         const Vector<T>& want, const std::vector<double>& scale,
                         const std::string& label) {
  Vector<T> got(A.rows(), T(-3));
  {
    cuda_test::PoisonOutputs poison;
    detail::cuda::mxv<S>(p, got, Mask{}, Accum::none(), A, u, false, false);
  }
  EXPECT_TRUE(cuda_test::same_result(got, want, cuda_test::exact_semiring(S::kind), &scale))
      << label << " semiring " << to_string(S::kind);
}

template <class S, class I, class V>
void check_graph(const Graph<I, V>& A, const std::string& name) {
  using T = typename S::value_type;
  const auto u = cuda_test::random_vector<T>(A.cols(), 0.0, 5);
  Vector<T> want;
  mxv(want, Mask{}, Accum::none(), S{}, A, u, Descriptor().on(Device::Cpu));
  // Size of each row's terms, sum_j |a_ij u_j| (naive, in double): 1138_bus has negative weights
  // whose products cancel, so float sums in another order differ by rounding of the terms.
  std::vector<double> scale(static_cast<std::size_t>(A.rows()), 0.0);
  for (I i = 0; i < A.rows(); ++i) {
    for (I k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k) {
      const I j = A.col_idx()[k];
      if (u.present(j)) scale[i] += std::fabs(A.template value_at<double>(k) * double(u[j]));
    }
  }
  for (MxvKernel k : {MxvKernel::RowPerThread, MxvKernel::SubwarpPerRow,
                      MxvKernel::NnzSplitSegmented, MxvKernel::MergePath}) {
    Vector<T> got(A.rows(), T(-3));
    {
      cuda_test::PoisonOutputs poison;
      mxv(got, Mask{}, Accum::none(), S{}, A, u, Descriptor().on(Device::Cuda).force(k));
    }
    EXPECT_TRUE(cuda_test::same_result(got, want, cuda_test::exact_semiring(S::kind), &scale))
        << name << " kernel " << to_string(k) << " semiring " << to_string(S::kind);
  }
  // row_block's block form (1024 entries per block) and warp form (256 per warp task), over the
  // graph's own and over relabelled columns (tile 1; plain calls only, as here).
  for (const std::int64_t entries : {1024, 256}) {
    for (const int tile : {0, 1}) {
      Plan p;
      const std::string why = finalize_forced<S>(p, MxvKernel::RowBlock, entries, tile, A);
      if (!why.empty()) {
        // Only a semiring without specialized kernels in this build is refused row_block.
        EXPECT_FALSE(detail::cuda_precompiled(OpKind::Mxv, S::kind)) << why;
        p = detail::plan_generic_mxv(A.stats(), detail::MxvInfo{}, "generic");
      }
      expect_plan_matches<S>(
          p, A, u, want, scale,
          name + " row_block/" + std::to_string(entries) + (tile ? "+relabel" : ""));
    }
  }
  // column_segmented over about 5 ranges of columns and over one (the planner's width for these
  // graphs, a slice of L2, is wider than any of them), over the graph's own and relabelled ids.
  for (const std::int64_t width : {std::max<std::int64_t>(A.cols() / 5, 1), std::int64_t{0}}) {
    for (const int tile : {0, 1}) {
      Plan p;
      const std::string why = finalize_forced<S>(p, MxvKernel::ColumnSegmented, width, tile, A);
      ASSERT_TRUE(why.empty() || !detail::cuda_precompiled(OpKind::Mxv, S::kind)) << why;
      if (!why.empty()) continue;
      expect_plan_matches<S>(p, A, u, want, scale,
                             name + " column_segmented/" +
                                 std::to_string(p.params.items_per_worker) +
                                 (tile ? "+relabel" : ""));
    }
  }
}

template <class I, class V>
void check_all(const std::string& dir) {
  for (const char* f : kGraphs) {
    const std::string path = dir + "/" + f;
    if (!std::filesystem::exists(path)) continue;
    Graph<I, V> A;
    try {
      A = load_graph<I, V>(path).graph;
    } catch (const std::exception& e) {
      // The loaders have their own tests; a file they refuse is not this test's subject.
      std::fprintf(stderr, "skipping %s: %s\n", f, e.what());
      continue;
    }
    check_graph<semiring::plus_times<float>>(A, f);
    check_graph<semiring::min_plus<double>>(A, f);
    check_graph<semiring::any_pair<float>>(A, f);
  }
}

TEST(MxvCudaRealGraphs, EveryKernelMatchesCpuOnTheDataFolderGraphs) {
  SPINDLE_REQUIRE_CUDA();
  const std::string dir = std::string(SPINDLE_DATA_DIR) + "/graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no data folder at " << dir;
  check_all<std::int32_t, float>(dir);
  check_all<std::int64_t, Pattern>(dir);
}

}  // namespace
}  // namespace spindle
