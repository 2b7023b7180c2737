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
#include "ops/cuda/mxm/mxm_fused.hpp"
#include "ops/cuda/mxm/persisting_limit.hpp"
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

/// nnz_balanced_seq's form forced through LaunchParams::oversubscription (1: group per chunk,
/// 2: warp per chunk); by default small graphs always take the warp form.
LaunchParams form(LaunchParams p, int f) {
  p.oversubscription = f;
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
    detail::cuda::mxm_fused<S>(plan_for(kc), C, o.accum, A, B_arg, o.bias ? &bias_v : nullptr,
                               Unary<T>::make(o.act), o.transpose_a, o.transpose_b);
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

/// Sets the group form's hint override for one test and restores the rule after it.
struct GatherHints {
  explicit GatherHints(std::int64_t budget) { detail::cuda::debug_spmm_gather_hints(budget); }
  ~GatherHints() { detail::cuda::debug_spmm_gather_hints(0); }
  GatherHints(const GatherHints&) = delete;
  GatherHints& operator=(const GatherHints&) = delete;
};

/// Sets debug_spmm_hot_copy for one scope.
struct HotCopy {
  explicit HotCopy(bool on) { detail::cuda::debug_spmm_hot_copy(on); }
  ~HotCopy() { detail::cuda::debug_spmm_hot_copy(false); }
  HotCopy(const HotCopy&) = delete;
  HotCopy& operator=(const HotCopy&) = delete;
};

// The group form's gather hints (ops/cuda/mxm/hot_columns.hpp) on graphs where they would not
// apply by rule, for a hot set of 4 KB of B rows: 8 / 16 / 32 hot rows of 512 / 256 / 128 bytes,
// read in place where one pass covers N, else (tile 8, N = 256) from a copy (4 rows of two
// 512-byte slabs at N = 256). So most gathers here are cold (evict-first loads of B). With
// `copy`, one-pass widths read the copy too. No result may change, and the persisting set-aside
// the copy raises must be back after each call.
void check_group_form_with_hints(bool copy, bool all_shapes) {
  const GatherHints hints(4096);
  const HotCopy hot_copy(copy);
  ASSERT_EQ(detail::cuda::spmm_gather_hints_override(), 4096);
  // The hot copy raises the device's persisting L2 set-aside for its call only: left raised, it
  // slows every later streaming kernel (hot_columns.cu).
  const std::int64_t limit = detail::cuda::debug_persisting_l2_limit();
  const std::vector<KernelCase> cases = {
      {MxmKernel::NnzBalancedSeq, form(lp(0, 0, 0), 1), "group form, hints"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 9, 0), 1), "group form chunk 9, hints"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 36, 0), 1), "group form chunk 36, hints"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 1024, 0), 1), "group form chunk 1024, hints"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 0, 8), 1), "group form tile 8, hints"},
  };
  std::uint64_t seed = copy ? 1900 : 900;
  std::vector<Shape> shapes = {Shape::PowerLaw, Shape::LongRows};
  if (all_shapes)
    shapes = {Shape::PowerLaw, Shape::DenseRow5000, Shape::LongRows, Shape::Uniform,
              Shape::MostlyEmpty};
  for (const Shape sh : shapes) {
    SCOPED_TRACE("shape " + std::to_string(static_cast<int>(sh)) + (copy ? ", copy" : ""));
    const Csr m = make_shape(sh, seed++);
    for (const std::int64_t n : {1, 8, 16, 32, 33, 64, 100, 128, 256}) {
      const std::int64_t before = detail::cuda::debug_spmm_hinted_launches();
      const std::int64_t copies = detail::cuda::debug_spmm_hot_copies();
      check_cases<semiring::plus_times<float>, std::int32_t, float>(m, n, cases, seed++);
      // The hinted kernel exists for 16-byte fragments only (N a multiple of 4 from 32 on);
      // narrower or odd widths run the hint-free kernel even with the hook on.
      const bool hinted = n >= 32 && n % 4 == 0;
      EXPECT_EQ(detail::cuda::debug_spmm_hinted_launches() - before,
                hinted ? static_cast<std::int64_t>(cases.size()) : 0)
          << "N = " << n;
      // In place, only calls of several passes read a copy: the 8-column tile, and N = 256 (two
      // 128-wide passes) in the other four cases.
      const std::int64_t want_copies = !hinted ? 0 : copy ? 5 : 1 + (n > 128 ? 4 : 0);
      EXPECT_EQ(detail::cuda::debug_spmm_hot_copies() - copies, want_copies) << "N = " << n;
      EXPECT_EQ(detail::cuda::debug_persisting_l2_limit(), limit) << "N = " << n;
    }
    check_cases<semiring::plus_times<double>, std::int64_t, double>(m, 64, cases, seed++);
    check_cases<semiring::plus_times<float>, std::int64_t, Pattern>(m, 128, cases, seed++);
    check_cases<semiring::max_plus<double>, std::int32_t, Pattern>(m, 100, cases, seed++);
    check_cases<semiring::min_plus<float>, std::int64_t, float>(m, 32, cases, seed++);
    Options bias_relu;
    bias_relu.bias = true;
    bias_relu.act = UnaryOp::Relu;
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 128, cases, seed++, bias_relu);
  }
}

TEST(MxmCuda, GroupFormWithGatherHintsMatchesOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_group_form_with_hints(false, true);
}

TEST(MxmCuda, GroupFormWithHotCopyMatchesOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_group_form_with_hints(true, false);
}

// Hints forced on while the GPU has "no room" for the flagged column ids (test hook): the
// group form runs its hint-free kernel and nothing changes in the results.
TEST(MxmCuda, GroupFormWithoutRoomForHintsMatchesOracle) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const GatherHints hints(4096);
  struct NoRoom {
    NoRoom() { detail::cuda::debug_spmm_hot_columns_no_room(true); }
    ~NoRoom() { detail::cuda::debug_spmm_hot_columns_no_room(false); }
  } no_room;
  const std::vector<KernelCase> cases = {
      {MxmKernel::NnzBalancedSeq, form(lp(0, 0, 0), 1), "group form, no room for hints"},
      {MxmKernel::NnzBalancedSeq, form(lp(0, 36, 0), 1), "group form chunk 36, no room"},
  };
  const std::int64_t before = detail::cuda::debug_spmm_hinted_launches();
  std::uint64_t seed = 950;
  for (const Shape sh : {Shape::PowerLaw, Shape::LongRows, Shape::MostlyEmpty}) {
    SCOPED_TRACE("shape " + std::to_string(static_cast<int>(sh)));
    const Csr m = make_shape(sh, seed++);
    check_cases<semiring::plus_times<float>, std::int32_t, float>(m, 128, cases, seed++);
    check_cases<semiring::plus_times<double>, std::int64_t, double>(m, 32, cases, seed++);
  }
  EXPECT_EQ(detail::cuda::debug_spmm_hinted_launches(), before);
}

// The flagged column ids behind the hot copy: column j < 100 has in-degree 100 - j, columns
// 100..199 none. With the hook's budget set (no skew check), the 8 columns of largest in-degree
// get slots 0..7 in in-degree order; a hot count beyond the columns with entries takes exactly
// those (never a column of in-degree 0). The hook itself checks every flagged entry against the
// copy's slot order. Without the hook, the skew check refuses a hot set holding under a quarter
// of the entries (the 8 columns above hold 15%) and keeps one holding more.
template <class I>
void check_hot_slots() {
  {
    std::vector<I> col;
    for (int j = 0; j < 100; ++j) {
      for (int r = 0; r < 100 - j; ++r) col.push_back(static_cast<I>(j));
    }
    for (const std::int64_t s : detail::cuda::debug_spmm_hot_slots<I>(col, 200, 8)) {
      ASSERT_EQ(s, -1);
    }
    std::vector<I> skewed(1000, static_cast<I>(5));  // column 5: 1000 entries, 1..99: one each
    for (int j = 1; j < 100; ++j) skewed.push_back(static_cast<I>(j));
    const std::vector<std::int64_t> hot = detail::cuda::debug_spmm_hot_slots<I>(skewed, 100, 8);
    for (std::size_t k = 0; k < skewed.size(); ++k) {
      const auto j = static_cast<std::int64_t>(skewed[k]);
      // Column 5 first, then the ones of in-degree 1 by id: 1, 2, 3, 4, 6, 7, 8.
      const std::int64_t want = j == 5 ? 0 : (j < 5 ? j : (j <= 8 ? j - 1 : -1));
      ASSERT_EQ(hot[k], want) << "entry " << k << ", column " << j;
    }
  }
  const GatherHints hints(4096);
  std::vector<I> col;
  for (int j = 0; j < 100; ++j) {
    for (int r = 0; r < 100 - j; ++r) col.push_back(static_cast<I>(j));
  }
  std::mt19937_64 rng(17);
  std::shuffle(col.begin(), col.end(), rng);
  const std::vector<std::int64_t> slot = detail::cuda::debug_spmm_hot_slots<I>(col, 200, 8);
  ASSERT_EQ(slot.size(), col.size());
  for (std::size_t k = 0; k < col.size(); ++k) {
    const auto j = static_cast<std::int64_t>(col[k]);
    ASSERT_EQ(slot[k], j < 8 ? j : -1) << "entry " << k << ", column " << j;
  }
  const std::vector<std::int64_t> all = detail::cuda::debug_spmm_hot_slots<I>(col, 200, 150);
  for (std::size_t k = 0; k < col.size(); ++k) {
    ASSERT_EQ(all[k], static_cast<std::int64_t>(col[k])) << "entry " << k;
  }
  // Ties keep ascending ids: columns 0..3 all of in-degree 5, hot count 2 takes 0 and 1.
  std::vector<I> ties;
  for (int j = 0; j < 4; ++j) {
    for (int r = 0; r < 5; ++r) ties.push_back(static_cast<I>(3 - j));
  }
  const std::vector<std::int64_t> tie = detail::cuda::debug_spmm_hot_slots<I>(ties, 4, 2);
  for (std::size_t k = 0; k < ties.size(); ++k) {
    const auto j = static_cast<std::int64_t>(ties[k]);
    ASSERT_EQ(tie[k], j < 2 ? j : -1) << "entry " << k;
  }
  EXPECT_TRUE(detail::cuda::debug_spmm_hot_slots<I>({}, 200, 8).empty());
}

TEST(MxmCuda, HotColumnSlotsFollowInDegree) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_hot_slots<std::int32_t>();
  check_hot_slots<std::int64_t>();
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
    DenseMatrix<float> C1(m.rows, 33);
    DenseMatrix<float> C2(m.rows, 33);
    detail::cuda::mxm<semiring::plus_times<float>>(plan_for(kc), C1, Accum{}, A, B, false, false);
    detail::cuda::mxm<semiring::plus_times<float>>(plan_for(kc), C2, Accum{}, A, B, false, false);
    const DenseMatrix<float>& r1 = C1;
    const DenseMatrix<float>& r2 = C2;
    EXPECT_EQ(
        0, std::memcmp(r1.data(), r2.data(), sizeof(float) * static_cast<std::size_t>(r1.size())));
  }
}

}  // namespace
}  // namespace spindle::test
