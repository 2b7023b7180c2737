// SPDX-License-Identifier: Apache-2.0
// GPU SpMM: every kernel variant (forced through the Plan, as the descriptor forces it), with its
// launch-parameter corners, against the naive oracle of mxm_test_util.hpp on shapes that stress
// it. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda/mxm_test_util.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "spindle/ops/mxm.hpp"
#include "spindle/vector.hpp"

namespace spindle::test {
namespace {

struct KernelCase {
  MxmKernel kernel;
  LaunchParams params;
  std::string name;
  MxvKernel mxv = MxvKernel::Auto;  ///< spmv: the mxv kernel (Auto: the mxv rules pick)
};

LaunchParams lp(int lanes, std::int64_t items, int tile) {
  LaunchParams p;
  p.lanes_per_row = lanes;
  p.items_per_worker = items;
  p.tile = tile;
  return p;
}

/// nnz_balanced_seq's form forced through LaunchParams::form (1: group per chunk, 2: warp per
/// chunk); by default small graphs always take the warp form.
LaunchParams form(LaunchParams p, int f) {
  p.form = f == 1 ? KernelForm::BalancedGroup : KernelForm::BalancedWarp;
  return p;
}

/// Every kernel, plus the parameter corners that change its code path: few lanes per row, a
/// narrow column tile, tiny nnz chunks (many rows cross chunks, long rows cross many), an ASpT
/// long-row limit so low that both the panel kernel and the long-row pass run.
std::vector<KernelCase> kernel_cases(bool plus_times) {
  std::vector<KernelCase> k = {
      {MxmKernel::ParallelReduceVec, lp(32, 0, 0), "parallel_reduce_vec/32 lanes"},
      {MxmKernel::ParallelReduceVec, lp(4, 0, 0), "parallel_reduce_vec/4 lanes"},
      {MxmKernel::RowCacheSeq, lp(0, 0, 0), "row_cache_seq"},
      {MxmKernel::RowCacheSeq, lp(0, 0, 8), "row_cache_seq/tile 8"},
      {MxmKernel::RowCacheSeq, lp(0, 16, 0), "row_cache_seq/split<=16"},
      {MxmKernel::RowCacheSeq, lp(0, 3, 8), "row_cache_seq/split<=3 tile 8"},
      // entry sets: lanes beyond the columns' split each row's entries (E = 32 / G, 2 / G)
      {MxmKernel::RowCacheSeq, lp(32, 0, 0), "row_cache_seq/32 lanes"},
      {MxmKernel::RowCacheSeq, lp(32, 0, 8), "row_cache_seq/tile 8/32 lanes"},
      {MxmKernel::RowCacheSeq, lp(2, 0, 0), "row_cache_seq/2 lanes"},
      {MxmKernel::RowCacheSeq, lp(32, 16, 0), "row_cache_seq/split<=16/32 lanes"},
      {MxmKernel::RowCacheSeq, lp(16, 3, 4), "row_cache_seq/split<=3 tile 4/16 lanes"},
      {MxmKernel::NnzBalancedSeq, lp(0, 0, 0), "nnz_balanced_seq"},
      {MxmKernel::NnzBalancedSeq, lp(0, 32, 0), "nnz_balanced_seq/chunk 32"},
      {MxmKernel::NnzBalancedSeq, lp(0, 7, 16), "nnz_balanced_seq/chunk 7 tile 16"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 0, 0), 1), "nnz_balanced_seq/group form"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 9, 0), 1), "nnz_balanced_seq/group form chunk 9"},
      // the group form's shared-memory windows: refilled several times per chunk (1024), and
      // windows of 16-byte loads followed by a partial one of single loads (36)
      {MxmKernel::NnzBalancedSeq, form(lp(0, 1024, 0), 1),
       "nnz_balanced_seq/group form chunk 1024"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 36, 0), 1), "nnz_balanced_seq/group form chunk 36"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 0, 0), 2), "nnz_balanced_seq/warp form"},
      {MxmKernel::RowBlock, lp(0, 0, 0), "row_block"},
      {MxmKernel::RowBlock, lp(0, 16, 0), "row_block/rows<=16"},
      // mxv's kernels at N = 1 without epilogue, row_block otherwise
      {MxmKernel::Spmv, lp(0, 0, 0), "spmv"},
      {MxmKernel::AsptTiled, lp(0, 0, 0), "aspt_tiled"},
      {MxmKernel::AsptTiled, lp(0, 16, 32), "aspt_tiled/long row 16 tile 32"},
  };
  if (plus_times) k.push_back({MxmKernel::Cusparse, lp(0, 0, 0), "cusparse"});
  return k;
}

Plan plan_for(const KernelCase& kc) {
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cuda;
  p.mxm = kc.kernel;
  p.mxv = kc.mxv;
  p.params = kc.params;
  p.forced = true;
  return p;
}

/// The case's plan completed by the planner (finalize_mxm_cuda) for semiring S over G at width
/// n, as a forced kernel is: "" and the plan, or why the planner refuses it.
template <class S, class I, class V>
std::string complete(Plan& p, const Graph<I, V>& G, std::int64_t n, bool accum, bool epilogue) {
  detail::MxmInfo info = detail::mxm_info<S, I, V>(n, accum, Descriptor{});
  info.epilogue = epilogue;
  return detail::finalize_mxm_cuda(p, G.stats(), info, device_caps());
}

Csr transpose_csr(const Csr& m) {
  Csr t;
  t.rows = m.cols;
  t.cols = m.rows;
  std::vector<std::int64_t> count(static_cast<std::size_t>(m.cols) + 1, 0);
  for (auto j : m.ci) ++count[static_cast<std::size_t>(j) + 1];
  for (std::int64_t j = 0; j < m.cols; ++j) count[j + 1] += count[j];
  t.rp = count;
  t.ci.resize(m.ci.size());
  t.val.resize(m.val.size());
  for (std::int64_t i = 0; i < m.rows; ++i) {
    for (std::int64_t e = m.rp[i]; e < m.rp[i + 1]; ++e) {
      const auto pos = count[static_cast<std::size_t>(m.ci[e])]++;
      t.ci[pos] = i;
      t.val[pos] = m.val[e];
    }
  }
  return t;
}

template <class T>
DenseMatrix<T> transposed(const DenseMatrix<T>& d) {
  DenseMatrix<T> t(d.cols(), d.rows());
  for (std::int64_t i = 0; i < d.rows(); ++i) {
    for (std::int64_t j = 0; j < d.cols(); ++j) t(j, i) = d(i, j);
  }
  return t;
}

struct Options {
  Accum accum{};
  bool bias = false;
  UnaryOp act = UnaryOp::Identity;
  bool transpose_a = false;
  bool transpose_b = false;
};

/// Runs every case of `cases` on (m, N) and compares with the oracle (computed once).
template <class S, class I, class V>
void check_cases(const Csr& m, std::int64_t n, const std::vector<KernelCase>& cases,
                 std::uint64_t seed, const Options& o = {}) {
  using T = typename S::value_type;
  const Graph<I, V> A = to_graph<I, V>(m);
  const Csr op_a = o.transpose_a ? transpose_csr(m) : m;
  const DenseMatrix<T> B = random_dense<T>(op_a.cols, n, seed);
  const DenseMatrix<T> B_arg = o.transpose_b ? transposed(B) : B;
  std::vector<T> bias_h;
  Vector<T> bias_v(n);
  for (std::int64_t c = 0; c < n; ++c) {
    bias_h.push_back(static_cast<T>((static_cast<double>((seed + 7 * c) % 9) - 4.0) / 4.0));
    bias_v[c] = bias_h.back();
  }
  const DenseMatrix<T> C0 = random_dense<T>(op_a.rows, n, seed + 1);
  DenseMatrix<T> expect = C0;
  ref_spmm<T>(S::kind, op_a, is_pattern_v<V>, B, o.bias ? &bias_h : nullptr, o.act, o.accum,
              expect);
  for (const KernelCase& kc : cases) {
    SCOPED_TRACE(kc.name + ", N = " + std::to_string(n));
    DenseMatrix<T> C = C0;
    if (!o.accum.enabled) {  // poison: every element must be written
      for (std::int64_t e = 0; e < C.size(); ++e) C.data()[e] = std::numeric_limits<T>::quiet_NaN();
    }
    Plan p = plan_for(kc);
    const bool epilogue = o.bias || o.act != UnaryOp::Identity;
    const std::string why =
        complete<S>(p, o.transpose_a ? A.transpose() : A, n, o.accum.enabled, epilogue);
    if (!why.empty()) {
      // The planner refuses this kernel for this call (spmv with an epilogue or accumulator, a
      // semiring without specialized kernels): the public call forcing it falls back to the
      // planner's pick, says so in its plan, and computes the same result.
      Descriptor d;
      d.device = Device::Cuda;
      d.transpose_a = o.transpose_a;
      d.transpose_b = o.transpose_b;
      d.mxm_kernel = kc.kernel;
      // The plan of this very call: its accumulator and epilogue are part of what is planned
      // (plan_for_mxm takes neither), so ask the planner with the call's own information.
      detail::MxmInfo info = detail::mxm_info<S, I, V>(n, o.accum.enabled, d);
      info.epilogue = epilogue;
      const Plan shown = detail::plan_mxm((o.transpose_a ? A.transpose() : A).stats(), info,
                                          Device::Cuda, device_caps(), d, nullptr, nullptr);
      if (kc.kernel == MxmKernel::Spmv && kc.mxv != MxvKernel::Auto &&
          shown.mxm == MxmKernel::Spmv) {
        // The descriptor forces spmv, not its mxv kernel: what was refused is this mxv variant,
        // and the call runs spmv with the mxv rules' pick.
        EXPECT_TRUE(shown.forced) << shown.describe();
      } else {
        EXPECT_NE(shown.reason.find("cannot run here"), std::string::npos) << shown.describe();
      }
      MxmEpilogue<T> epi;
      epi.bias = o.bias ? &bias_v : nullptr;
      epi.act = o.act;
      mxm(C, o.accum, S{}, A, B_arg, epi, d);
    } else {
      detail::cuda::mxm_fused<S>(p, C, o.accum, A, B_arg, o.bias ? &bias_v : nullptr,
                                 Unary<T>::make(o.act), o.transpose_a, o.transpose_b);
    }
    const DenseMatrix<T>& Cr = C;  // const read: one download
    const std::int64_t bad = first_mismatch(Cr.data(), expect.data(), expect.size());
    if (bad >= 0) {
      ADD_FAILURE() << "first mismatch at row " << bad / n << ", column " << bad % n << ": got "
                    << Cr.data()[bad] << ", expected " << expect.data()[bad];
    }
  }
}

const Shape kAllShapes[] = {Shape::PowerLaw, Shape::DenseRow5000, Shape::MostlyEmpty,
                            Shape::Uniform,  Shape::LongRows,     Shape::Tiny,
                            Shape::NoEntries};
const std::int64_t kWidths[] = {1, 2, 3, 4, 5, 8, 31, 32, 33, 100, 128, 256};

// One test per shape and one per semiring (rather than one test looping over all of them):
// the same cases, but gtest shards can spread them, which is what lets compute-sanitizer's
// racecheck (~100x slower) get through the suite in one run.
class MxmCudaShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(MxmCudaShapes, EveryKernelMatchesOracleOnEveryWidthPlusTimesFloat) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto cases = kernel_cases(true);
  std::uint64_t seed = 100 + 16 * static_cast<std::uint64_t>(GetParam());
  const Csr m = make_shape(GetParam(), seed++);
  for (std::int64_t n : kWidths) {
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, n, cases, seed++);
  }
}

// Graphs from 2^17 entries cut row_block's rows longer than one block (1024 entries) into pieces
// added by a second kernel; smaller ones keep up to 8 blocks' worth in one block. The shapes
// above are all small: this one covers the pieces (a row of 20000 = 20 pieces) and, at wide N,
// several column passes, for a semiring whose identity is not zero.
TEST(MxmCudaRowBlock, LongRowsAreCutIntoPiecesOnLargerGraphs) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::HugeRow, 77);
  ASSERT_GE(m.nnz(), std::int64_t{1} << 17);
  const std::vector<KernelCase> rb = {{MxmKernel::RowBlock, lp(0, 0, 0), "row_block"},
                                      {MxmKernel::RowBlock, lp(0, 64, 0), "row_block/rows<=64"}};
  std::uint64_t seed = 500;
  for (std::int64_t n : {1, 3, 8, 12, 33, 70}) {
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, n, rb, seed++);
    check_cases<semiring::max_plus<double>, std::int64_t, double>(m, n, rb, seed++);
  }
}

// A column pass is 8 floats: more than 65535 x 8 output columns need more than one launch (the
// grid's y limit). 3 x 2 graph, N = 600001 (odd: scalar loads).
TEST(MxmCudaRowBlock, VeryWideOutputsTakeSeveralLaunches) {
  SPINDLE_SKIP_WITHOUT_GPU();
  Csr m;
  m.rows = 3;
  m.cols = 2;
  m.rp = {0, 2, 2, 3};
  m.ci = {0, 1, 1};
  m.val = {0.5, -2.0, 1.5};
  const std::vector<KernelCase> rb = {{MxmKernel::RowBlock, lp(0, 0, 0), "row_block"}};
  check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 600001, rb, 41);
}

// N = 1 without an epilogue runs mxv's kernels (spmv_dense): each of them, with relabelled
// columns where row_block can take them, for three semiring / index / value combinations and a
// transposed B (a 1 x k row, the same bytes as a k x 1 column).
TEST(MxmCudaSpmv, WidthOneRunsEachMxvKernel) {
  SPINDLE_SKIP_WITHOUT_GPU();
  std::vector<KernelCase> cases;
  auto add = [&](MxvKernel k, int lanes, std::int64_t items, int tile, const std::string& name) {
    cases.push_back({MxmKernel::Spmv, lp(lanes, items, tile), "spmv/" + name, k});
  };
  add(MxvKernel::RowPerThread, 0, 0, 0, "row_per_thread");
  add(MxvKernel::SubwarpPerRow, 4, 0, 0, "subwarp_per_row/4");
  add(MxvKernel::SubwarpPerRow, 32, 0, 0, "subwarp_per_row/32");
  add(MxvKernel::NnzSplitSegmented, 0, 64, 0, "nnz_split_segmented/64");
  add(MxvKernel::MergePath, 0, 0, 0, "merge_path");
  add(MxvKernel::RowBlock, 0, 0, 0, "row_block");
  add(MxvKernel::RowBlock, 0, 512, 1, "row_block/512+relabel");
  add(MxvKernel::RowBlock, 0, 0, 1, "row_block+relabel");
  std::uint64_t seed = 900;
  Options tb;
  tb.transpose_b = true;
  for (Shape s : kAllShapes) {
    SCOPED_TRACE(shape_name(s));
    const Csr m = make_shape(s, seed++);
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 1, cases, seed++);
    check_cases<semiring::max_plus<double>, std::int64_t, double>(m, 1, cases, seed++);
    check_cases<semiring::plus_times<float>, std::int32_t, Pattern>(m, 1, cases, seed++, tb);
  }
  const Csr h = make_shape(Shape::HugeRow, seed++);  // long rows cut into pieces
  check_cases<semiring::plus_times<float>, std::int32_t, float>(h, 1, cases, seed++);
  check_cases<semiring::min_plus<float>, std::int32_t, float>(h, 1, cases, seed++);
}

INSTANTIATE_TEST_SUITE_P(AllShapes, MxmCudaShapes, ::testing::ValuesIn(kAllShapes),
                         [](const ::testing::TestParamInfo<Shape>& i) {
                           return std::string(shape_name(i.param));
                         });

template <class S>
void every_kernel_for_semiring(std::uint64_t seed) {
  SCOPED_TRACE(to_string(S::kind));
  const auto cases = kernel_cases(S::kind == SemiringKind::PlusTimes);
  const Csr m = make_shape(Shape::PowerLaw, seed);
  const Csr d = make_shape(Shape::DenseRow5000, seed + 1);
  for (std::int64_t n : {1, 5, 33}) {
    check_cases<S, std::int32_t, float>(m, n, cases, seed + 10 + n);
    check_cases<S, std::int32_t, float>(d, n, cases, seed + 20 + n);
  }
}

#define SPINDLE_MXM_SEMIRING_TEST(Name, semiring_t, seed)         \
  TEST(MxmCudaSemirings, EveryKernelMatchesOracleFor##Name) {     \
    SPINDLE_SKIP_WITHOUT_GPU();                                   \
    every_kernel_for_semiring<semiring::semiring_t<float>>(seed); \
  }
SPINDLE_TEST_BUILTIN_SEMIRINGS(SPINDLE_MXM_SEMIRING_TEST)
#undef SPINDLE_MXM_SEMIRING_TEST

TEST(MxmCuda, EveryKernelMatchesOracleWithInt64IndicesPatternAndDoubleValues) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::PowerLaw, 31);
  const Csr l = make_shape(Shape::LongRows, 32);
  for (std::int64_t n : {3, 100}) {
    check_cases<semiring::plus_times<float>, std::int64_t, float>(m, n, kernel_cases(true), 40 + n);
    check_cases<semiring::plus_times<float>, std::int64_t, Pattern>(m, n, kernel_cases(true),
                                                                    50 + n);
    check_cases<semiring::plus_times<double>, std::int64_t, double>(l, n, kernel_cases(true),
                                                                    60 + n);
    check_cases<semiring::plus_times<double>, std::int32_t, float>(m, n, kernel_cases(true),
                                                                   70 + n);
    check_cases<semiring::max_plus<double>, std::int32_t, Pattern>(l, n, kernel_cases(false),
                                                                   80 + n);
    check_cases<semiring::min_plus<float>, std::int64_t, double>(m, n, kernel_cases(false), 90 + n);
  }
}

TEST(MxmCuda, FusedBiasReluEpilogueAndAccumulatorsMatchOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::PowerLaw, 5);
  // Bias + Relu, bias alone and Relu alone: the kernels' compile-time epilogues (EpiKind
  // BiasRelu, Bias under plus_times) and the generic one.
  const std::pair<bool, UnaryOp> epilogues[] = {
      {true, UnaryOp::Relu}, {true, UnaryOp::Identity}, {false, UnaryOp::Relu}};
  for (const auto& [bias, act] : epilogues) {
    SCOPED_TRACE(std::string(bias ? "bias" : "no bias") + ", " + to_string(act));
    Options o;
    o.bias = bias;
    o.act = act;
    for (std::int64_t n : {1, 5, 32, 33, 128}) {
      check_cases<semiring::plus_times<float>, std::int32_t, float>(m, n, kernel_cases(true), 7 + n,
                                                                    o);
    }
    check_cases<semiring::plus_times<double>, std::int64_t, double>(m, 64, kernel_cases(true), 8,
                                                                    o);
    check_cases<semiring::plus_times<float>, std::int32_t, Pattern>(m, 32, kernel_cases(true), 9,
                                                                    o);
  }
  for (BinaryOp op : {BinaryOp::Plus, BinaryOp::Max, BinaryOp::Min}) {
    Options a;
    a.accum = Accum::with(op);
    a.bias = op == BinaryOp::Max;
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 33, kernel_cases(true), 3, a);
    check_cases<semiring::max_plus<float>, std::int32_t, float>(m, 4, kernel_cases(false), 4, a);
  }
}

TEST(MxmCuda, TransposedOperandsMatchOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const Csr m = make_shape(Shape::PowerLaw, 77);
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      Options o;
      o.transpose_a = ta;
      o.transpose_b = tb;
      check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 33, kernel_cases(true), 9,
                                                                    o);
      check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 4, kernel_cases(true), 10,
                                                                    o);
    }
  }
}

TEST(MxmCuda, LoadBalancedKernelsAreBitIdenticalRunToRun) {
  SPINDLE_SKIP_WITHOUT_GPU();
  // Inexact values (sums round), so a different combination order would show.
  Csr m = make_shape(Shape::DenseRow5000, 3);
  for (std::size_t e = 0; e < m.val.size(); ++e)
    m.val[e] = 1.0 / (3.0 + static_cast<double>(e % 7));
  const Graph<std::int32_t, float> A = to_graph<std::int32_t, float>(m);
  DenseMatrix<float> B(m.cols, 33);
  for (std::int64_t e = 0; e < B.size(); ++e)
    B.data()[e] = 1.0f / (1.0f + static_cast<float>(e % 13));
  for (const auto& kc : kernel_cases(false)) {
    SCOPED_TRACE(kc.name);
    Plan p = plan_for(kc);
    const std::string why = complete<semiring::plus_times<float>>(p, A, 33, false, false);
    if (!why.empty()) {
      EXPECT_EQ(kc.kernel, MxmKernel::Spmv) << why;  // the one kernel N = 33 cannot run
      continue;
    }
    DenseMatrix<float> C1(m.rows, 33);
    DenseMatrix<float> C2(m.rows, 33);
    detail::cuda::mxm<semiring::plus_times<float>>(p, C1, Accum{}, A, B, false, false);
    detail::cuda::mxm<semiring::plus_times<float>>(p, C2, Accum{}, A, B, false, false);
    const DenseMatrix<float>& r1 = C1;
    const DenseMatrix<float>& r2 = C2;
    EXPECT_EQ(
        0, std::memcmp(r1.data(), r2.data(), sizeof(float) * static_cast<std::size_t>(r1.size())));
  }
}

}  // namespace
}  // namespace spindle::test
