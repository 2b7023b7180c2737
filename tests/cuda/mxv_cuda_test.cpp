// SPDX-License-Identifier: Apache-2.0
// Every CUDA mxv kernel (forced, with launch parameters at the edges of their ranges) against the
// CPU backend, over the built-in semirings, value types, index types, masks / accumulators /
// replace, and the graph shapes that stress each kernel. CUDA outputs are poisoned before each
// run, so an entry a kernel forgets to write shows up as a wrong value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/core/backend.hpp"
#include "ops/core/planner.hpp"
#include "spindle/coo_builder.hpp"
#include "spindle/ops/mxv.hpp"
#include "spindle/version.hpp"
#if SPINDLE_HAS_CUDA
#include <cuda_runtime.h>

#include "engine/src/cuda/graph_device.hpp"
#include "ops/cuda/mxv/column_relabel_order.hpp"
#include "ops/cuda/mxv/partition.hpp"
#include "spindle/cuda/residency.hpp"
#include "spindle/detail/transpose_builder.hpp"
#endif

namespace spindle {
namespace {

using cuda_test::Family;
using cuda_test::make_graph;
using cuda_test::random_vector;

struct KernelCase {
  MxvKernel kernel;
  LaunchParams params;
  std::string name;
};

// tile = 1: columns relabelled by in-degree (ops/cuda/mxv/mxv_entry.cuh).
KernelCase kc(MxvKernel k, std::int64_t items = 0, int lanes = 0, int tile = 0) {
  KernelCase c{k, {}, to_string(k)};
  c.params.items_per_worker = items;
  c.params.lanes_per_row = lanes;
  c.params.tile = tile;
  if (items) c.name += "/" + std::to_string(items);
  if (lanes) c.name += "/" + std::to_string(lanes);
  if (tile) c.name += "+relabel";
  return c;
}

// The kernels, with launch parameters at the edges of their ranges.
std::vector<KernelCase> all_kernels() {
  return {kc(MxvKernel::RowPerThread), kc(MxvKernel::SubwarpPerRow, 0, 2),
          kc(MxvKernel::SubwarpPerRow, 0, 8), kc(MxvKernel::SubwarpPerRow, 0, 32),
          kc(MxvKernel::NnzSplitSegmented, 32), kc(MxvKernel::NnzSplitSegmented, 256),
          kc(MxvKernel::NnzSplitSegmented, 2048), kc(MxvKernel::MergePath, 1),
          kc(MxvKernel::MergePath, 7), kc(MxvKernel::MergePath, 16), kc(MxvKernel::RowBlock, 512),
          kc(MxvKernel::RowBlock, 1024), kc(MxvKernel::SubwarpPerRow, 0, 8, 1),
          kc(MxvKernel::NnzSplitSegmented, 256, 0, 1), kc(MxvKernel::MergePath, 5, 0, 1),
          kc(MxvKernel::NnzSplitSegmented, 64, 0, 1), kc(MxvKernel::RowBlock, 512, 0, 1),
          kc(MxvKernel::RowBlock, 1024, 0, 1), kc(MxvKernel::RowBlock, 256),
          kc(MxvKernel::RowBlock, 256, 0, 1), kc(MxvKernel::SlicedCoo),
          kc(MxvKernel::SlicedCoo, 128), kc(MxvKernel::SlicedCoo, 512),
          kc(MxvKernel::SlicedCoo, 2048),
          // Ranges of 40 columns (up to 1751 passes on these graphs: the limit is 4096), 500,
          // and one range wider than the graph.
          kc(MxvKernel::ColumnSegmented, 40), kc(MxvKernel::ColumnSegmented, 500),
          kc(MxvKernel::ColumnSegmented, 500, 0, 1),
          kc(MxvKernel::ColumnSegmented, std::int64_t{1} << 30)};
}

// One representative per kernel (for the wide semiring x type sweep).
std::vector<KernelCase> one_per_kernel() {
  return {kc(MxvKernel::RowPerThread),
          kc(MxvKernel::SubwarpPerRow, 0, 4),
          kc(MxvKernel::NnzSplitSegmented, 64),
          kc(MxvKernel::MergePath, 5),
          kc(MxvKernel::RowBlock, 512),
          kc(MxvKernel::RowBlock, 256),
          kc(MxvKernel::SlicedCoo),
          kc(MxvKernel::ColumnSegmented, 64)};
}

// one_per_kernel() and each of them over relabelled columns: on the general path (masks,
// accumulators, absent inputs) the relabelling gathers u's presence too.
std::vector<KernelCase> masked_kernels() {
  std::vector<KernelCase> ks = one_per_kernel();
  for (const KernelCase& k : one_per_kernel()) {
    ks.push_back(kc(k.kernel, k.params.items_per_worker, k.params.lanes_per_row, 1));
  }
  return ks;
}

Plan plan_of(const KernelCase& k, OpKind op) {
  Plan p;
  p.op = op;
  p.device = Device::Cuda;
  p.mxv = k.kernel;
  p.params = k.params;
  p.forced = true;
  return p;
}

/// The case's plan completed by the planner (finalize_mxv_cuda) for a call through semiring S
/// over the rows of M, as a forced kernel is: "" and the plan, or why the planner refuses it.
template <class S, class I, class V>
detail::MxvInfo call_info(OpKind op, const Mask& mask, Accum accum, bool input_full) {
  return detail::mxv_info<S, I, V>(op, mask, accum, input_full, Descriptor{});
}

template <class S, class I, class V>
std::string complete(Plan& p, const Graph<I, V>& M, OpKind op, const Mask& mask, Accum accum,
                     bool input_full) {
  return detail::finalize_mxv_cuda(p, M.stats(), call_info<S, I, V>(op, mask, accum, input_full),
                                   device_caps());
}

// w<mask> = accum(w, A ⊕.⊗ u) (or u ⊕.⊗ A) on the CPU backend, and with kernel `k` on CUDA.
template <class S, class I, class V>
::testing::AssertionResult cuda_matches_cpu(const Graph<I, V>& A, const KernelCase& k,
                                            const Vector<typename S::value_type>& u,
                                            const Vector<typename S::value_type>& w0,
                                            const Mask& mask = Mask{}, Accum accum = Accum::none(),
                                            bool replace = false, bool vxm = false,
                                            bool transpose_a = false) {
  using T = typename S::value_type;
  Descriptor cpu;
  cpu.on(Device::Cpu).with_replace(replace).with_transpose_a(transpose_a);
  Vector<T> want = w0, got = w0;
  if (vxm) {
    spindle::vxm(want, mask, accum, S{}, u, A, cpu);
  } else {
    spindle::mxv(want, mask, accum, S{}, A, u, cpu);
  }
  const OpKind op = vxm ? OpKind::Vxm : OpKind::Mxv;
  Plan p = plan_of(k, op);
  const std::string why =
      complete<S>(p, transpose_a != vxm ? A.transpose() : A, op, mask, accum, u.is_full());
  {
    cuda_test::PoisonOutputs poison;
    if (!why.empty()) {
      // The planner refuses this kernel for this call (a kernel of plain calls on the general
      // path, a semiring without specialized kernels): the public call forcing it falls back
      // to the planner's pick and says so in its plan.
      Descriptor d;
      d.on(Device::Cuda).with_replace(replace).with_transpose_a(transpose_a).force(k.kernel);
      // The plan of this very call (plan_for_mxv takes u to be full; an input with absent
      // entries is part of what the planner reads), as the public call makes it.
      const Graph<I, V>& M = transpose_a != vxm ? A.transpose() : A;
      const Plan shown =
          detail::plan_mxv(M.stats(), call_info<S, I, V>(op, mask, accum, u.is_full()),
                           Device::Cuda, device_caps(), d, nullptr);
      if (shown.reason.find("cannot run here") == std::string::npos) {
        return ::testing::AssertionFailure()
               << "forced " << k.name << " refused (" << why
               << ") but the plan does not say so: " << shown.describe();
      }
      if (vxm) {
        spindle::vxm(got, mask, accum, S{}, u, A, d);
      } else {
        spindle::mxv(got, mask, accum, S{}, A, u, d);
      }
    } else if (vxm) {
      detail::cuda::vxm<S>(p, got, mask, accum, u, A, transpose_a, replace);
    } else {
      detail::cuda::mxv<S>(p, got, mask, accum, A, u, transpose_a, replace);
    }
  }
  auto r = cuda_test::same_result(got, want, cuda_test::exact_semiring(S::kind));
  if (!r) {
    r << " [kernel " << k.name << ", semiring " << to_string(S::kind) << ", T "
      << to_string(value_kind_of<T>()) << ", V " << to_string(value_kind_of<V>()) << ", I "
      << to_string(index_kind_of<I>()) << "]";
  }
  return r;
}

// plus_times over A with kernel k, `runs` times: every run's bits equal the first run's.
template <class T, class I, class V>
::testing::AssertionResult same_bits_run_to_run(const Graph<I, V>& A, const Vector<T>& u,
                                                const KernelCase& k, int runs) {
  Vector<T> first;
  for (int run = 0; run < runs; ++run) {
    Vector<T> w(A.rows(), T(0));
    Plan p = plan_of(k, OpKind::Mxv);
    const std::string why =
        complete<semiring::plus_times<T>>(p, A, OpKind::Mxv, Mask{}, Accum::none(), true);
    if (!why.empty()) return ::testing::AssertionFailure() << k.name << " refused: " << why;
    detail::cuda::mxv<semiring::plus_times<T>>(p, w, Mask{}, Accum::none(), A, u, false, false);
    w.sync_to_host();
    if (run == 0) {
      first = w;
    } else if (w.values() != first.values()) {
      return ::testing::AssertionFailure() << k.name << " changed bits on run " << run;
    }
  }
  return ::testing::AssertionSuccess();
}

// Every kernel case on one family, plus_times and min_plus over float.
template <class I>
void check_family(Family f, std::int64_t n, std::int64_t cols, std::uint64_t seed) {
  const auto A = make_graph<I, float>(f, n, cols, seed);
  const auto u = random_vector<float>(cols, 0.0, seed + 1);
  const auto w0 = Vector<float>(n, 0.0f);
  for (const KernelCase& k : all_kernels()) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, w0)))
        << cuda_test::family_name(f);
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, w0)))
        << cuda_test::family_name(f);
  }
}

TEST(MxvCuda, EveryKernelMatchesCpuOnPowerLawRows) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::PowerLaw, 3001, 2777, 11);
}

TEST(MxvCuda, EveryKernelMatchesCpuOnOneRowLongerThanABlock) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::DenseRow, 6007, 6007, 12);
}

TEST(MxvCuda, EveryKernelMatchesCpuOnLongRunsOfEmptyRows) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::EmptyRuns, 4099, 1999, 13);
}

TEST(MxvCuda, EveryKernelMatchesCpuOnRowsLongerThanAWarp) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::LongRows, 1237, 977, 14);
}

TEST(MxvCuda, EveryKernelMatchesCpuWhenOneRowSpansManyChunks) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::HugeRow, 20011, 19997, 15);
}

TEST(MxvCuda, EveryKernelMatchesCpuOnEvenRows) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int32_t>(Family::Uniform, 2053, 2053, 16);
}

TEST(MxvCuda, EveryKernelMatchesCpuWithSeventyThousandColumns) {
  SPINDLE_REQUIRE_CUDA();
  // 70001 columns (u larger than a block's shared memory), with relabelled columns among the
  // kernel cases: the gather of u into relabelled order and the remapped column ids at scale.
  check_family<std::int32_t>(Family::Uniform, 3001, 70001, 19);
  check_family<std::int32_t>(Family::LongRows, 2003, 70001, 20);
  const auto A = make_graph<std::int64_t, double>(Family::Uniform, 3001, 70001, 21);
  const auto u = random_vector<double>(70001, 0.0, 22);
  for (const KernelCase& k : all_kernels()) {
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(A, k, u, Vector<double>(3001, 0.0))));
  }
}

// More used columns than row_block's hot set (32768 float / 16384 double entries of u):
// relabelled row_block reads the hot ids through L1 (the warp form: from its shared-memory copy)
// and the rest with the cold loads.
TEST(MxvCuda, RowBlockMatchesCpuWithColdColumnsPastTheHotSet) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::Uniform, 60013, 90001, 23);
  const auto u = random_vector<float>(90001, 0.0, 24);
  const auto Ad = make_graph<std::int64_t, double>(Family::LongRows, 40009, 50021, 25);
  const auto ud = random_vector<double>(50021, 0.0, 26);
  for (const KernelCase& k : {kc(MxvKernel::RowBlock, 512, 0, 1),
                              kc(MxvKernel::RowBlock, 1024, 0, 1), kc(MxvKernel::RowBlock, 1024),
                              kc(MxvKernel::RowBlock, 256, 0, 1), kc(MxvKernel::RowBlock, 256)}) {
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(60013, 0.f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::max_times<float>>(A, k, u, Vector<float>(60013, 0.f))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(Ad, k, ud, Vector<double>(40009, 0.0))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_pair<double>>(Ad, k, ud, Vector<double>(40009, 0.0))));
  }
  // The general path over the same relabelled columns: u with absent entries (its presence is
  // gathered into relabelled order beside the values), a complemented mask, an accumulator.
  const auto u_sparse = random_vector<float>(90001, 0.3, 35);
  const auto ud_sparse = random_vector<double>(50021, 0.3, 36);
  const auto mask_f = random_vector<float>(60013, 0.5, 37);
  const auto mask_d = random_vector<double>(40009, 0.5, 38);
  for (const KernelCase& k :
       {kc(MxvKernel::RowBlock, 512, 0, 1), kc(MxvKernel::RowBlock, 1024, 0, 1),
        kc(MxvKernel::RowBlock, 256, 0, 1), kc(MxvKernel::SubwarpPerRow, 0, 8, 1),
        kc(MxvKernel::NnzSplitSegmented, 256, 0, 1)}) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
        A, k, u_sparse, random_vector<float>(60013, 0.2, 39), Mask::structural(mask_f, true),
        Accum::plus())));
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(
        A, k, u_sparse, Vector<float>(60013, 0.f), Mask::value(mask_f), Accum::none(), true)));
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<double>>(
        Ad, k, ud_sparse, random_vector<double>(40009, 0.2, 40), Mask::structural(mask_d),
        Accum::plus())));
    EXPECT_TRUE((cuda_matches_cpu<semiring::any_pair<double>>(
        Ad, k, ud_sparse, Vector<double>(40009, 0.0), Mask::structural(mask_d, true), Accum::none(),
        true)));
    // u full: the general path through a mask or an accumulator only (no presence to gather).
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
        A, k, u, random_vector<float>(60013, 0.2, 41), Mask::structural(mask_f, true),
        Accum::none())));
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<double>>(
        Ad, k, ud, random_vector<double>(40009, 0.2, 42), Mask{}, Accum::plus())));
  }
}

// Rows shaped like as20graph: mostly 0-2 entries, some up to 10, one in a hundred 65-128 and a
// few far longer than a block. On graphs this small (below 2^17 entries) row_block's simple path
// runs its small form (row_block.cuh): blocks of many short rows beside a long one need several
// rounds of lane groups, so they take the segmented scan, and the long rows' blocks keep eight
// products per thread in flight. Every built-in semiring, float and double, int32 and int64,
// against the CPU backend; plus_times bit-identical run to run.
template <class I, class V>
Graph<I, V> short_rows_beside_long_ones(std::int64_t n, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<I> rp(1, 0), ci;
  std::vector<V> vals;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t pick = rng() % 1000;
    std::int64_t len = pick < 200   ? 0
                       : pick < 850 ? 1 + static_cast<std::int64_t>(rng() % 2)
                       : pick < 985 ? 3 + static_cast<std::int64_t>(rng() % 8)
                       : pick < 995 ? 65 + static_cast<std::int64_t>(rng() % 64)
                                    : 200 + static_cast<std::int64_t>(rng() % 1400);
    len = std::min(len, cols);
    std::vector<I> row;
    for (std::int64_t k = 0; k < len; ++k) row.push_back(static_cast<I>(rng() % cols));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (I j : row) {
      ci.push_back(j);
      vals.push_back(static_cast<V>(0.5 + static_cast<double>(rng() % 1024) / 1024.0));
    }
    rp.push_back(static_cast<I>(ci.size()));
  }
  return Graph<I, V>(n, cols, std::move(rp), std::move(ci), std::move(vals));
}

// NaN entries in u (every seventh): min / max semirings ignore NaN terms wherever they sit in a
// row, as on the CPU backend (a scan that takes a row's first term unfolded would return NaN).
// Semirings whose multiply turns a NaN input into a NaN term (max_min's min would not).
template <class T, class I, class V>
void expect_nan_terms_as_cpu(const Graph<I, V>& A, const KernelCase& k, Vector<T> u) {
  for (std::int64_t j = 0; j < u.size(); j += 7) u.set(j, std::numeric_limits<T>::quiet_NaN());
  const Vector<T> w0(A.rows(), T(0));
  EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<T>>(A, k, u, w0)));
  EXPECT_TRUE((cuda_matches_cpu<semiring::max_plus<T>>(A, k, u, w0)));
  EXPECT_TRUE((cuda_matches_cpu<semiring::max_times<T>>(A, k, u, w0)));
  EXPECT_TRUE((cuda_matches_cpu<semiring::min_times<T>>(A, k, u, w0)));
}

template <class T, class I>
void check_small_form(std::uint64_t seed) {
  const auto A = short_rows_beside_long_ones<I, T>(6007, 4001, seed);
  ASSERT_LT(A.nnz(), std::int64_t{1} << 17) << "must stay a small (launch-bound) graph";
  const auto u = random_vector<T>(4001, 0.0, seed + 1);
  const Vector<T> w0(6007, T(0));
  for (const KernelCase& k :
       {kc(MxvKernel::RowBlock, 512), kc(MxvKernel::RowBlock, 1024),
        kc(MxvKernel::RowBlock, 512, 0, 1), kc(MxvKernel::RowBlock, 1024, 0, 1)}) {
    for (SemiringKind s : kBuiltinSemirings) {
      visit_semiring<T>(s, [&](auto sr) {
        using S = decltype(sr);
        EXPECT_TRUE((cuda_matches_cpu<S>(A, k, u, w0)));
      });
    }
    ASSERT_TRUE(same_bits_run_to_run(A, u, k, 3));
    expect_nan_terms_as_cpu(A, k, u);
  }
}

TEST(MxvCuda, RowBlockSmallFormMatchesCpuOnShortRowsBesideLongOnes) {
  SPINDLE_REQUIRE_CUDA();
  check_small_form<float, std::int32_t>(81);
  check_small_form<double, std::int32_t>(83);
  check_small_form<float, std::int64_t>(85);
  check_small_form<double, std::int64_t>(87);
}

// sliced_coo (sliced_coo.cuh): whole rows in slots at fixed offsets, a segmented scan per warp
// (slots of 128) or per block (512, 2048). Graphs whose longest row needs each form, with rows of
// exactly a slot, empty rows (placeholders) and many slots (several blocks); every built-in
// semiring, float / double / pattern values, int32 / int64; plus_times bit-identical run to run;
// the general path (masks, accumulators, replace, absent inputs) and vxm. A row longer than the
// largest slot falls back to row_block (EveryKernel* families with long rows cover that too).
template <class I, class V>
Graph<I, V> rows_of_lengths(const std::vector<std::int64_t>& lens, std::int64_t cols,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<I> rp(1, 0), ci;
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  std::vector<I> all(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) all[static_cast<std::size_t>(j)] = static_cast<I>(j);
  for (std::int64_t len : lens) {
    // `len` distinct columns: a partial shuffle of all of them.
    const std::int64_t take = std::min(len, cols);
    for (std::int64_t t = 0; t < take; ++t) {
      std::swap(all[static_cast<std::size_t>(t)],
                all[static_cast<std::size_t>(t + static_cast<std::int64_t>(rng() % (cols - t)))]);
    }
    std::vector<I> row(all.begin(), all.begin() + take);
    std::sort(row.begin(), row.end());
    for (I j : row) {
      ci.push_back(j);
      if constexpr (!is_pattern_v<V>) {
        vals.push_back(static_cast<V>(0.5 + static_cast<double>(rng() % 1024) / 1024.0));
      }
    }
    rp.push_back(static_cast<I>(ci.size()));
  }
  return Graph<I, V>(static_cast<I>(lens.size()), static_cast<I>(cols), std::move(rp),
                     std::move(ci), std::move(vals));
}

// Row lengths up to `longest`: mostly short, some empty, a few of exactly `longest` entries.
std::vector<std::int64_t> sliced_lengths(std::int64_t n, std::int64_t longest, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int64_t> lens;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t pick = rng() % 100;
    lens.push_back(pick < 10   ? 0
                   : pick < 85 ? 1 + static_cast<std::int64_t>(rng() % 12)
                   : pick < 98 ? static_cast<std::int64_t>(rng() % (longest + 1))
                               : longest);
  }
  return lens;
}

template <class T, class I, class V>
void check_sliced(std::int64_t longest, std::int64_t n, std::uint64_t seed) {
  const std::int64_t cols = 3001;
  const auto A = rows_of_lengths<I, V>(sliced_lengths(n, longest, seed), cols, seed + 1);
  ASSERT_EQ(A.stats().max_row, longest);
  ASSERT_GT(A.stats().empty_rows, 0);
  const auto u = random_vector<T>(cols, 0.0, seed + 2);
  const auto u_sparse = random_vector<T>(cols, 0.3, seed + 3);
  const Vector<T> w0(n, T(0));
  for (const KernelCase& k : {kc(MxvKernel::SlicedCoo), kc(MxvKernel::SlicedCoo, 2048)}) {
    for (SemiringKind s : kBuiltinSemirings) {
      visit_semiring<T>(s, [&](auto sr) {
        using S = decltype(sr);
        EXPECT_TRUE((cuda_matches_cpu<S>(A, k, u, w0))) << "longest row " << longest;
        EXPECT_TRUE((cuda_matches_cpu<S>(A, k, u_sparse, w0))) << "longest row " << longest;
      });
    }
    ASSERT_TRUE(same_bits_run_to_run(A, u, k, 3));
    expect_nan_terms_as_cpu(A, k, u);
  }
  const KernelCase k = kc(MxvKernel::SlicedCoo);
  const auto mask = random_vector<T>(n, 0.5, seed + 4);
  const auto w_old = random_vector<T>(n, 0.3, seed + 5);
  using PT = semiring::plus_times<T>;
  EXPECT_TRUE(
      (cuda_matches_cpu<PT>(A, k, u_sparse, w_old, Mask::structural(mask, true), Accum::plus())));
  EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<T>>(A, k, u, w_old, Mask::value(mask),
                                                       Accum::none(), true)));
  EXPECT_TRUE((cuda_matches_cpu<PT>(A, k, u, w_old, Mask{}, Accum::plus())));
  // vxm over the transpose (square: u has n entries).
  const auto S2 = rows_of_lengths<I, V>(sliced_lengths(cols, longest, seed + 6), cols, seed + 7);
  EXPECT_TRUE(
      (cuda_matches_cpu<PT>(S2, k, u, Vector<T>(cols, T(0)), Mask{}, Accum::none(), false, true)));
}

TEST(MxvCuda, SlicedCooMatchesCpuInEveryForm) {
  SPINDLE_REQUIRE_CUDA();
  // Warp slots (longest row 128), block slots of 512 and 2048 (longest 512, 2048), and 1100 rows
  // of at most 128: several blocks of warp slots.
  check_sliced<float, std::int32_t, float>(128, 5003, 101);
  check_sliced<float, std::int32_t, float>(512, 3001, 103);
  check_sliced<float, std::int32_t, float>(2048, 2003, 105);
  check_sliced<double, std::int64_t, double>(128, 5003, 107);
  check_sliced<double, std::int32_t, float>(512, 3001, 109);
  check_sliced<float, std::int64_t, Pattern>(2048, 2003, 111);
  check_sliced<double, std::int32_t, Pattern>(100, 1100, 113);
}

// A row one entry longer than the largest slot: sliced_coo runs row_block instead, and the result
// is still right; the planner's small rules never send such a graph to it.
TEST(MxvCuda, SlicedCooFallsBackWhenARowExceedsItsLargestSlot) {
  SPINDLE_REQUIRE_CUDA();
  std::vector<std::int64_t> lens = sliced_lengths(2003, 300, 121);
  lens[77] = 2049;
  const auto A = rows_of_lengths<std::int32_t, float>(lens, 3001, 122);
  ASSERT_EQ(A.stats().max_row, 2049);
  const auto u = random_vector<float>(3001, 0.0, 123);
  for (const KernelCase& k : {kc(MxvKernel::SlicedCoo), kc(MxvKernel::SlicedCoo, 128)}) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(2003, 0.f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::max_times<float>>(A, k, u, Vector<float>(2003, 0.f))));
  }
}

// Every kernel case ignores NaN terms under min / max as the CPU backend does (each folds a row's
// terms from the identity), on power-law rows and on a graph whose rows are all empty.
TEST(MxvCuda, EveryKernelTreatsNaNTermsAsTheCpuBackend) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 2777, 131);
  const auto u = random_vector<float>(2777, 0.0, 132);
  const auto D = make_graph<std::int64_t, double>(Family::LongRows, 1237, 977, 133);
  const auto ud = random_vector<double>(977, 0.0, 134);
  const Graph<std::int32_t, float> E(7, 5, std::vector<std::int32_t>(8, 0), {}, {});
  for (const KernelCase& k : all_kernels()) {
    expect_nan_terms_as_cpu(A, k, u);
    expect_nan_terms_as_cpu(D, k, ud);
    expect_nan_terms_as_cpu(E, k, Vector<float>(5, 1.0f));
  }
}

// row_block's block form streams the matrix with L2 eviction hints only when its indices and
// values take more than 60% of L2 (mxv_entry.cuh, row_block_form); every other test graph is
// smaller and runs the plain-load (or small) form. A matrix sized from the device's L2 so that
// the streaming form runs: float / int32 and double / int64, plain and relabelled columns, the
// simple path and an accumulator with absent inputs (the general path).
TEST(MxvCuda, RowBlockStreamingFormMatchesCpuOnAMatrixLargerThanL2) {
  SPINDLE_REQUIRE_CUDA();
  const std::int64_t l2 = device_caps().l2_bytes;
  ASSERT_GT(l2, 0);
  const std::int64_t n = l2 / 8 / 16 + 1;  // ~16 entries per row: about L2's size in float / int32
  const std::int64_t cols = 100003;
  const auto A = make_graph<std::int32_t, float>(Family::Uniform, n, cols, 91);
  ASSERT_GT(static_cast<double>(A.nnz()) * 8.0, 0.6 * static_cast<double>(l2));
  const auto u = random_vector<float>(cols, 0.0, 92);
  const auto D = make_graph<std::int64_t, double>(Family::Uniform, n / 2, cols, 93);
  ASSERT_GT(static_cast<double>(D.nnz()) * 16.0, 0.6 * static_cast<double>(l2));
  const auto ud = random_vector<double>(cols, 0.0, 94);
  for (const KernelCase& k :
       {kc(MxvKernel::RowBlock, 512), kc(MxvKernel::RowBlock, 1024),
        kc(MxvKernel::RowBlock, 512, 0, 1), kc(MxvKernel::RowBlock, 1024, 0, 1)}) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(n, 0.f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, Vector<float>(n, 0.f))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(D, k, ud, Vector<double>(n / 2, 0.0))));
  }
  EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
      A, kc(MxvKernel::RowBlock, 1024), random_vector<float>(cols, 0.3, 95),
      random_vector<float>(n, 0.2, 96), Mask{}, Accum::plus())));
}

// row_block's warp form runs a persistent grid (one block per SM, 32 warps): with several times
// more tasks than warps each warp walks many tasks, and the next task's loads are in flight while
// it reduces the current one. Power-law rows (long rows cut into many pieces) and a hot set
// smaller than the used columns, over float / int32 (the prefetching build) and double / int64.
// A graph whose rows have the given lengths (cycled over `rows` rows), columns drawn at random
// (distinct, sorted) from [0, cols), values in [0.5, 1.5).
template <class I, class V>
Graph<I, V> graph_of_lengths(const std::vector<int>& lens, std::int64_t rows, std::int64_t cols,
                             std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<I> rp(1, 0), ci;
  std::vector<V> val;
  std::vector<I> row;
  for (std::int64_t r = 0; r < rows; ++r) {
    const int len = lens[static_cast<std::size_t>(r) % lens.size()];
    row.clear();
    while (static_cast<int>(row.size()) < len) {
      row.push_back(static_cast<I>(rng() % static_cast<std::uint64_t>(cols)));
      if (static_cast<int>(row.size()) == len) {
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
      }
    }
    for (I c : row) {
      ci.push_back(c);
      if constexpr (!is_pattern_v<V>) val.push_back(static_cast<V>(0.5 + (rng() % 1024) / 1024.0));
    }
    rp.push_back(static_cast<I>(ci.size()));
  }
  if constexpr (is_pattern_v<V>) {
    return Graph<I, V>(rows, cols, std::move(rp), std::move(ci));
  } else {
    return Graph<I, V>(rows, cols, std::move(rp), std::move(ci), std::move(val));
  }
}

// The simple path's warp form reduces runs of whole rows (up to 256 entries whatever the rows'
// lengths) by a segmented scan over a per-warp mask of row ends (row_block_warp.cuh's runs
// kernel). Rows at every limit it has: empty rows (leading, trailing, stretches longer than a
// warp and than a run's 256 entries), runs of more than 32 and more than 64 rows (their offsets
// past the registers are loaded), rows of 1, 8 (a lane's share), 255, 256 (a run of its own) and
// 257 / 600 entries (pieces), and rows ending on every lane boundary.
TEST(MxvCuda, RowBlockWarpRunsMatchCpuOnRowsAroundTheirLimits) {
  SPINDLE_REQUIRE_CUDA();
  std::vector<int> lens = {0, 0, 0, 1, 8, 255, 256, 257, 7, 9, 600, 64, 65, 3};
  for (int i = 0; i < 100; ++i) lens.push_back(i % 3 == 0 ? 0 : 1);  // a run of ~ 150 rows
  for (int i = 0; i < 300; ++i) lens.push_back(0);                   // more than 256 empty rows
  for (int i = 0; i < 40; ++i) lens.push_back(i % 9);                // ends on lane boundaries
  lens.push_back(200);
  lens.push_back(56);
  const std::int64_t rows = 20011;  // the pattern cycles ~ 40 times and ends part-way through
  const auto A = graph_of_lengths<std::int32_t, float>(lens, rows, 60013, 41);
  const auto P = graph_of_lengths<std::int32_t, Pattern>(lens, rows, 60013, 42);
  const auto D = graph_of_lengths<std::int64_t, double>(lens, rows, 20011, 43);
  const auto u = random_vector<float>(60013, 0.0, 44);
  const auto ud = random_vector<double>(20011, 0.0, 45);
  for (const KernelCase& k : {kc(MxvKernel::RowBlock, 256), kc(MxvKernel::RowBlock, 256, 0, 1)}) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::max_times<float>>(P, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_pair<float>>(P, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(D, k, ud, Vector<double>(rows, 0.0))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<double>>(D, k, ud, Vector<double>(rows, 0.0))))
        << k.name;
  }
}

// Long rows' pieces are summed by a warp per row, lane l taking pieces l, l + 32, ...: rows of
// 1, 2, 31, 32, 33, 64, 65 and 200 pieces of the warp form's 256 entries and of the block form's
// pieces, between short rows, on the simple and the general paths.
TEST(MxvCuda, RowBlockLongRowsMatchCpuAroundTheWarpsPieceCounts) {
  SPINDLE_REQUIRE_CUDA();
  std::vector<int> lens = {3,
                           256,
                           257,
                           0,
                           256 * 31 + 1,
                           5,
                           256 * 32,
                           256 * 32 + 1,
                           17,
                           256 * 64,
                           256 * 64 + 9,
                           1,
                           256 * 200 + 3,
                           0,
                           1024 * 33 + 1,
                           2,
                           1024 * 65 + 3,
                           40};
  const std::int64_t rows = 97;  // the pattern cycles five times and ends part-way through
  const std::int64_t cols = 200003;
  const auto A = graph_of_lengths<std::int32_t, float>(lens, rows, cols, 51);
  const auto D = graph_of_lengths<std::int64_t, double>(lens, rows, cols, 52);
  const auto u = random_vector<float>(cols, 0.0, 53);
  const auto ud = random_vector<double>(cols, 0.0, 54);
  const auto u_sparse = random_vector<float>(cols, 0.3, 55);
  for (const KernelCase& k : {kc(MxvKernel::RowBlock, 256), kc(MxvKernel::RowBlock, 256, 0, 1),
                              kc(MxvKernel::RowBlock, 512), kc(MxvKernel::RowBlock, 1024, 0, 1)}) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, Vector<float>(rows, 0.f))))
        << k.name;
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(D, k, ud, Vector<double>(rows, 0.0))))
        << k.name;
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
        A, k, u_sparse, random_vector<float>(rows, 0.2, 56), Mask{}, Accum::plus())))
        << k.name;
  }
}

TEST(MxvCuda, RowBlockWarpFormMatchesCpuWithManyTasksPerWarp) {
  SPINDLE_REQUIRE_CUDA();
  const std::int64_t warps = std::int64_t{device_caps().sm_count} * 32;
  const auto A = make_graph<std::int32_t, float>(Family::Uniform, 200003, 150001, 27);
  ASSERT_GT(A.nnz() / 256, 2 * warps) << "too few tasks to give each warp several";
  const auto u = random_vector<float>(150001, 0.0, 28);
  const auto P = make_graph<std::int32_t, Pattern>(Family::PowerLaw, 40009, 3001, 29);
  const auto up = random_vector<float>(3001, 0.0, 30);
  const auto D = make_graph<std::int64_t, double>(Family::Uniform, 200003, 150001, 31);
  const auto ud = random_vector<double>(150001, 0.0, 32);
  for (const KernelCase& k : {kc(MxvKernel::RowBlock, 256, 0, 1), kc(MxvKernel::RowBlock, 256)}) {
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(200003, 0.f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, Vector<float>(200003, 0.f))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<float>>(P, k, up, Vector<float>(40009, 0.f))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(D, k, ud, Vector<double>(200003, 0.0))));
  }
  // The general path (an accumulator, absent inputs) on the same persistent grid.
  const auto u_sparse = random_vector<float>(150001, 0.3, 33);
  EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
      A, kc(MxvKernel::RowBlock, 256), u_sparse, random_vector<float>(200003, 0.2, 34), Mask{},
      Accum::plus())));
}

TEST(MxvCuda, EveryKernelMatchesCpuWithInt64Indices) {
  SPINDLE_REQUIRE_CUDA();
  check_family<std::int64_t>(Family::PowerLaw, 3001, 2777, 17);
  check_family<std::int64_t>(Family::EmptyRuns, 4099, 1999, 18);
}

TEST(MxvCuda, EveryKernelMatchesCpuOnOneByOne) {
  SPINDLE_REQUIRE_CUDA();
  const Graph<std::int32_t, float> A(1, 1, {0, 1}, {0}, {2.5f});
  const Vector<float> u(1, 4.0f), w0(1, 0.0f);
  for (const KernelCase& k : all_kernels()) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, w0)));
  }
}

// All ten built-in semirings x T {float, double} x V {float, double, pattern} x I, one
// representative per kernel, on power-law rows with absent inputs.
template <class T, class I, class V>
void sweep_semirings(std::uint64_t seed) {
  const auto A = make_graph<I, V>(Family::PowerLaw, 1031, 1009, seed);
  const auto u_full = random_vector<T>(1009, 0.0, seed + 1);
  const auto u_sparse = random_vector<T>(1009, 0.3, seed + 2);
  const Vector<T> w0(1031, T(0));
  for (const KernelCase& k : one_per_kernel()) {
    for (SemiringKind s : kBuiltinSemirings) {
      visit_semiring<T>(s, [&](auto sr) {
        using S = decltype(sr);
        EXPECT_TRUE((cuda_matches_cpu<S>(A, k, u_full, w0)));
        EXPECT_TRUE((cuda_matches_cpu<S>(A, k, u_sparse, w0)));
      });
    }
  }
}

TEST(MxvCuda, EverySemiringValueTypeAndIndexTypeMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  sweep_semirings<float, std::int32_t, float>(21);
  sweep_semirings<float, std::int32_t, double>(22);
  sweep_semirings<float, std::int32_t, Pattern>(23);
  sweep_semirings<double, std::int32_t, double>(24);
  sweep_semirings<double, std::int32_t, float>(25);
  sweep_semirings<double, std::int64_t, Pattern>(26);
  sweep_semirings<float, std::int64_t, float>(27);
}

// Masks (value / structural, complemented or not, several element types), accumulators and
// replace, with inputs and outputs that have absent entries.
template <class M>
void check_masks(const Vector<M>& mvec) {
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 2003, 2003, 31);
  const auto u = random_vector<float>(2003, 0.2, 32);
  const auto w0 = random_vector<float>(2003, 0.4, 33);
  const std::vector<Mask> masks = {Mask::value(mvec), Mask::value(mvec, true),
                                   Mask::structural(mvec), Mask::structural(mvec, true)};
  const std::vector<Accum> accums = {Accum::none(), Accum::plus(), Accum::min(),
                                     Accum::with(BinaryOp::Second)};
  for (const KernelCase& k : masked_kernels()) {
    for (const Mask& m : masks) {
      for (const Accum& acc : accums) {
        for (bool replace : {false, true}) {
          EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, w0, m, acc, replace)))
              << "accum " << acc.enabled << " replace " << replace;
          EXPECT_TRUE((cuda_matches_cpu<semiring::any_pair<float>>(A, k, u, w0, m, acc, replace)));
          EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, w0, m, acc, replace)));
        }
      }
    }
    // No mask with an accumulator, and no mask with replace (a no-op).
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, w0, Mask{}, Accum::plus())));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::max_min<float>>(A, k, u, w0, Mask{}, Accum::none(), true)));
  }
}

TEST(MxvCuda, MasksAccumulatorsAndReplaceMatchCpuForEveryKernel) {
  SPINDLE_REQUIRE_CUDA();
  check_masks(random_vector<std::int32_t>(2003, 0.3, 41));  // value mask with zeros below
  auto m8 = random_vector<std::uint8_t>(2003, 0.5, 42);
  for (std::int64_t i = 0; i < 2003; i += 7) m8[i] = 0;
  check_masks(m8);
  check_masks(random_vector<double>(2003, 0.0, 43));
}

// Over a full old output the device writes no presence bytes where the result stays full
// (ops/cuda/common/output_rule.hpp): masked calls without replace whose rows all have a term, and
// accumulating calls over a graph with empty rows. Each must still equal the CPU backend, present
// entries included, and a later call must read that full result right.
TEST(MxvCuda, MaskedAndAccumulatingCallsOverAFullOutputMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const auto L = make_graph<std::int32_t, float>(Family::LongRows, 1031, 997, 81);  // no empty row
  const auto P = make_graph<std::int64_t, double>(Family::PowerLaw, 2003, 2003, 82);
  ASSERT_EQ(L.stats().empty_rows, 0);
  ASSERT_GT(P.stats().empty_rows, 0);
  const auto mvec = random_vector<std::int32_t>(1031, 0.3, 83);
  const auto uL = random_vector<float>(997, 0.0, 84);
  const auto wL = random_vector<float>(1031, 0.0, 85);
  const auto uP = random_vector<double>(2003, 0.0, 86);
  const auto wP = random_vector<double>(2003, 0.0, 87);
  const std::vector<Mask> masks = {Mask::value(mvec), Mask::value(mvec, true),
                                   Mask::structural(mvec), Mask::structural(mvec, true)};
  for (const KernelCase& k : masked_kernels()) {
    for (const Mask& m : masks) {
      for (Accum acc : {Accum::none(), Accum::plus()}) {
        EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(L, k, uL, wL, m, acc)));
        EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(L, k, uL, wL, m, acc)));
      }
    }
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(P, k, uP, wP, Mask{}, Accum::plus())));
    EXPECT_TRUE((cuda_matches_cpu<semiring::max_plus<double>>(P, k, uP, wP, Mask{}, Accum::min())));
  }
  // A chain kept on the device: full results without presence bytes feed a masked call, an
  // accumulation and a replace (which makes holes), as the CPU backend runs the same chain.
  const semiring::plus_times<float> pt{};
  auto chain = [&](Vector<float>& w, Descriptor d) {
    mxv(w, Mask::value(mvec), Accum::none(), pt, L, uL, d);
    mxv(w, Mask::structural(mvec, true), Accum::plus(), pt, L, uL, d);
    mxv(w, Mask{}, Accum::plus(), pt, L, uL, d);
    mxv(w, Mask::value(mvec), Accum::none(), pt, L, uL, Descriptor(d).with_replace(true));
    mxv(w, Mask::value(mvec, true), Accum::plus(), pt, L, uL, d);
  };
  Vector<float> want = wL, got = wL;
  chain(want, Descriptor().on(Device::Cpu));
  {
    cuda_test::PoisonOutputs poison;
    chain(got, Descriptor().on(Device::Cuda));
  }
  EXPECT_TRUE(cuda_test::same_result(got, want, false));
}

TEST(MxvCuda, VxmAndTransposedMxvMatchCpuForEveryKernel) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, double>(Family::PowerLaw, 1503, 1201, 51);
  const auto u_rows = random_vector<double>(1503, 0.1, 52);
  const auto u_cols = random_vector<double>(1201, 0.1, 53);
  for (const KernelCase& k : one_per_kernel()) {
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<double>>(
        A, k, u_rows, Vector<double>(1201, 0.0), Mask{}, Accum::none(), false, true)));
    EXPECT_TRUE((cuda_matches_cpu<semiring::max_times<double>>(
        A, k, u_cols, Vector<double>(1503, 0.0), Mask{}, Accum::none(), false, true, true)));
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<double>>(
        A, k, u_rows, Vector<double>(1201, 0.0), Mask{}, Accum::none(), false, false, true)));
  }
}

TEST(MxvCuda, CusparseMatchesCpuForPlusTimes) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::PowerLaw, 3001, 2777, 61);
  const auto B = make_graph<std::int64_t, double>(Family::EmptyRuns, 4099, 1999, 62);
  for (int alg : {0, 2}) {
    KernelCase k = kc(MxvKernel::Cusparse);
    k.params.tile = alg;  // 2 selects CUSPARSE_SPMV_CSR_ALG2
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<float>>(
        A, k, random_vector<float>(2777, 0.0, 63), Vector<float>(3001, 0.0f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::plus_times<double>>(
        B, k, random_vector<double>(1999, 0.0, 64), Vector<double>(4099, 0.0))));
  }
}

TEST(MxvCuda, LoadBalancedKernelsAreBitIdenticalRunToRun) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::HugeRow, 20011, 19997, 71);
  const auto u = random_vector<float>(19997, 0.0, 72);
  for (const KernelCase& k : {kc(MxvKernel::NnzSplitSegmented, 64), kc(MxvKernel::MergePath, 3),
                              kc(MxvKernel::RowBlock, 512), kc(MxvKernel::RowBlock, 1024, 0, 1),
                              kc(MxvKernel::RowBlock, 256, 0, 1)}) {
    ASSERT_TRUE(same_bits_run_to_run(A, u, k, 5));
  }
  // The warp form's persistent loop (several tasks per warp, columns past the hot set).
  const auto B = make_graph<std::int32_t, float>(Family::Uniform, 200003, 150001, 73);
  const auto ub = random_vector<float>(150001, 0.0, 74);
  for (const KernelCase& k : {kc(MxvKernel::RowBlock, 256, 0, 1), kc(MxvKernel::RowBlock, 256)}) {
    ASSERT_TRUE(same_bits_run_to_run(B, ub, k, 3));
  }
}

// column_segmented (ops/cuda/mxv/column_segmented.cuh) past the small graphs of all_kernels():
// ranges of 40000 columns (4 passes), 149999 (2, the second one column wide), one range, and
// relabelled ids in ranges of 30000; then the layout's run-to-run bits, and double values over
// int64 indices. (A width past kMaxColumnSegments ranges is the planner's refusal:
// tests/ops/planner_cuda_test.cpp.)
TEST(MxvCuda, ColumnSegmentedMatchesCpuOverSeveralRangesAndIsBitIdentical) {
  SPINDLE_REQUIRE_CUDA();
  const auto A = make_graph<std::int32_t, float>(Family::Uniform, 200003, 150001, 75);
  const auto u = random_vector<float>(150001, 0.0, 76);
  const auto B = make_graph<std::int64_t, double>(Family::LongRows, 40009, 50021, 77);
  const auto ub = random_vector<double>(50021, 0.0, 78);
  for (const KernelCase& k :
       {kc(MxvKernel::ColumnSegmented, 40000), kc(MxvKernel::ColumnSegmented, 149999),
        kc(MxvKernel::ColumnSegmented), kc(MxvKernel::ColumnSegmented, 30000, 0, 1)}) {
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<float>>(A, k, u, Vector<float>(200003, 0.f))));
    EXPECT_TRUE((cuda_matches_cpu<semiring::min_plus<float>>(A, k, u, Vector<float>(200003, 0.f))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_times<double>>(B, k, ub, Vector<double>(40009, 0.0))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::max_times<double>>(B, k, ub, Vector<double>(40009, 0.0))));
    EXPECT_TRUE(
        (cuda_matches_cpu<semiring::plus_pair<double>>(B, k, ub, Vector<double>(40009, 0.0))));
  }
  ASSERT_TRUE(same_bits_run_to_run(A, u, kc(MxvKernel::ColumnSegmented, 40000), 3));
  ASSERT_TRUE(same_bits_run_to_run(B, ub, kc(MxvKernel::ColumnSegmented, 9000), 3));
  ASSERT_TRUE(same_bits_run_to_run(A, u, kc(MxvKernel::ColumnSegmented, 40000, 0, 1), 3));
}

TEST(MxvCuda, PublicEntryWithForcedKernelsAndDegenerateShapesMatchesCpu) {
  SPINDLE_REQUIRE_CUDA();
  const std::vector<Graph<std::int32_t, float>> graphs = {
      Graph<std::int32_t, float>(),
      make_graph<std::int32_t, float>(Family::NoEntries, 517, 311, 81),
      make_graph<std::int32_t, float>(Family::PowerLaw, 999, 311, 82)};
  for (const auto& A : graphs) {
    for (MxvKernel k : {MxvKernel::Auto, MxvKernel::RowPerThread, MxvKernel::SubwarpPerRow,
                        MxvKernel::NnzSplitSegmented, MxvKernel::MergePath, MxvKernel::RowBlock,
                        MxvKernel::Cusparse}) {
      const auto u = random_vector<float>(A.cols(), 0.0, 83);
      Vector<float> want, got(A.rows(), -7.0f);
      mxv(want, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
          Descriptor().on(Device::Cpu));
      mxv(got, Mask{}, Accum::none(), semiring::plus_times<float>{}, A, u,
          Descriptor().on(Device::Cuda).force(k));
      EXPECT_TRUE(cuda_test::same_result(got, want, false)) << to_string(k);
    }
  }
}

#if SPINDLE_HAS_CUDA
// First difference of two arrays as a message, or "" when equal (no multi-MB diffs in the log).
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& want) {
  if (got.size() != want.size()) {
    return "sizes " + std::to_string(got.size()) + " and " + std::to_string(want.size());
  }
  const auto at = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
  if (at == static_cast<std::ptrdiff_t>(got.size())) return "";
  return "first difference at " + std::to_string(at) + ": " + std::to_string(got[at]) +
         " against " + std::to_string(want[at]);
}

template <class T>
std::vector<T> download(const T* d, std::size_t n) {
  std::vector<T> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// The relabelling the warp forms gather through (column_relabel, cached on the graph) against a
// naive host construction: the hottest kColumnRelabelHot columns by decreasing in-degree (ties by
// id), then the other columns with entries in the order of their first entry, then the columns
// without entries in id order; the mapped column indices; `used`. Skewed column degrees (many
// ties, hundreds of hot columns) on more columns than the prefix holds, with unused columns
// among them, for both index types. (Only the order's speed depends on this; the mxv tests above
// check results over the relabelling.)
template <class I>
void expect_relabel_matches_host_order(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Coo<I> coo;
  coo.rows = static_cast<I>(rows);
  coo.cols = static_cast<I>(cols);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::int64_t i = 0; i < rows; ++i) {
    const int len = static_cast<int>(rng() % 41);
    for (int t = 0; t < len; ++t) {
      // u^3 skews the columns towards low ids; the top 3% of ids stay unused.
      const double u = unit(rng);
      coo.row.push_back(static_cast<I>(i));
      coo.col.push_back(static_cast<I>(static_cast<double>(cols) * 0.97 * u * u * u));
    }
  }
  BuildOptions o;
  o.duplicates = DuplicatePolicy::Collapse;
  const auto A = build_graph<I, Pattern>(std::move(coo), o);
  const std::int64_t nnz = A.nnz();
  ASSERT_GT(cols, detail::cuda::kColumnRelabelHot + 1000);

  // The host's order.
  std::vector<std::int64_t> deg(cols, 0), first(cols, std::numeric_limits<std::int64_t>::max());
  for (std::int64_t k = 0; k < nnz; ++k) {
    const auto j = static_cast<std::size_t>(A.col_idx()[k]);
    ++deg[j];
    first[j] = std::min(first[j], k);
  }
  std::vector<I> perm(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) perm[j] = static_cast<I>(j);
  std::stable_sort(perm.begin(), perm.end(), [&](I a, I b) { return deg[a] > deg[b]; });
  std::stable_sort(perm.begin() + detail::cuda::kColumnRelabelHot, perm.end(),
                   [&](I a, I b) { return first[a] < first[b]; });
  std::vector<I> inv(static_cast<std::size_t>(cols));
  for (std::int64_t p = 0; p < cols; ++p) inv[perm[p]] = static_cast<I>(p);
  const auto used = std::count_if(deg.begin(), deg.end(), [](std::int64_t d) { return d > 0; });
  ASSERT_LT(used, cols);                                    // unused columns exist
  ASSERT_GT(used, detail::cuda::kColumnRelabelHot + 1000);  // and a cold range to order

  const detail::cuda::ColumnRelabel rl = detail::cuda::column_relabel(A);
  EXPECT_EQ(rl.used, used);
  EXPECT_EQ(first_difference(download(static_cast<const I*>(rl.perm), perm.size()), perm), "")
      << "perm (new id -> column)";
  std::vector<I> mapped(static_cast<std::size_t>(nnz));
  for (std::int64_t k = 0; k < nnz; ++k) mapped[k] = inv[A.col_idx()[k]];
  EXPECT_EQ(first_difference(download(static_cast<const I*>(rl.col_idx), mapped.size()), mapped),
            "")
      << "mapped column indices";
}

TEST(MxvCuda, ColumnRelabelIsHotByInDegreeThenColdByFirstUse) {
  SPINDLE_REQUIRE_CUDA();
  expect_relabel_matches_host_order<std::int32_t>(30011, 160003, 71);
  expect_relabel_matches_host_order<std::int64_t>(20011, 90001, 72);
}

// A^T sorted on the device (ops/cuda/transpose.cu, installed while CUDA operations run) against
// the host's counting sort of the same graph: the same arrays element for element, for every
// index and value type, on a rectangular graph above the device path's 2^20 entries with skewed
// columns, empty rows and columns, and rows of thousands of entries. The device copy it leaves
// behind is the transpose's (found without an upload) and equals the host arrays. Then the public
// vxm on a fresh copy, on CUDA, which builds its A^T that way: the CPU backend's result, and A's
// structure uploaded instead of A^T's.
template <class I, class V>
void expect_device_transpose_matches_host(std::uint64_t seed) {
  constexpr bool kValues = !Graph<I, V>::is_pattern;
  const std::int64_t rows = 3001, cols = 400009;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Coo<I> coo;
  coo.rows = static_cast<I>(rows);
  coo.cols = static_cast<I>(cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    if (i % 11 == 5) continue;  // empty rows
    const int len = i % 97 == 0 ? 6000 : static_cast<int>(rng() % 700);
    for (int t = 0; t < len; ++t) {
      const double u = unit(rng);
      coo.row.push_back(static_cast<I>(i));
      coo.col.push_back(static_cast<I>(static_cast<double>(cols - 1) * u * u));
      if (kValues) coo.val.push_back(static_cast<double>(rng() % 1000) / 8.0 - 60.0);
    }
  }
  BuildOptions o;
  o.duplicates = DuplicatePolicy::KeepFirst;
  const auto A = build_graph<I, V>(std::move(coo), o);
  ASSERT_GT(A.nnz(), std::int64_t{1} << 20);
  const auto copy = [&A] {  // the same arrays in storage of their own (no shared cache)
    return Graph<I, V>(A.rows(), A.cols(), std::vector<I>(A.row_ptr()), std::vector<I>(A.col_idx()),
                       std::vector(A.values()));
  };
  const std::string type =
      std::string(to_string(index_kind_of<I>())) + "/" + to_string(value_kind_of<V>());
  const Graph<I, V>& host = A.transpose();  // no builder installed: the host's
  const Graph<I, V> B = copy();
  const Graph<I, V>* dev = nullptr;
  {
    const detail::ScopedTransposeBuilder on(detail::cuda_transpose_builder());
    dev = &B.transpose();
  }
  EXPECT_EQ(dev->rows(), host.rows());
  EXPECT_EQ(dev->cols(), host.cols());
  EXPECT_EQ(first_difference(dev->row_ptr(), host.row_ptr()), "") << type << " row_ptr";
  EXPECT_EQ(first_difference(dev->col_idx(), host.col_idx()), "") << type << " col_idx";
  EXPECT_EQ(first_difference(dev->values(), host.values()), "") << type << " values";

  const std::uint64_t uploads = transfer_stats().graph_uploads;
  const auto d = detail::cuda::device_pattern(*dev);
  EXPECT_EQ(first_difference(download(d.row_ptr, host.row_ptr().size()), host.row_ptr()), "")
      << type << " device row_ptr";
  EXPECT_EQ(first_difference(download(d.col_idx, host.col_idx().size()), host.col_idx()), "")
      << type << " device col_idx";
  if constexpr (kValues) {
    const auto dv = detail::cuda::device_csr<V>(*dev);
    EXPECT_EQ(first_difference(download(dv.values, host.values().size()), host.values()), "")
        << type << " device values";
  }
  EXPECT_EQ(transfer_stats().graph_uploads, uploads) << type << ": the device copy was uploaded";

  // The public vxm on CUDA over a fresh copy: A's structure goes up (rows + 1 offsets), not A^T's;
  // A's values as stored, and A^T's as float when they are not (the pull's type).
  const Graph<I, V> C = copy();
  const auto u = random_vector<float>(rows, 0.0, seed + 1);
  Vector<float> want, got;
  vxm(want, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, A,
      Descriptor().on(Device::Cpu));
  reset_transfer_stats();
  // (row_block forced: cuSPARSE would also upload ones for a pattern graph's values.)
  vxm(got, Mask{}, Accum::none(), semiring::plus_times<float>{}, u, C,
      Descriptor().on(Device::Cuda).force(MxvKernel::RowBlock));
  EXPECT_TRUE(C.has_transpose());
  const std::uint64_t a_structure = static_cast<std::uint64_t>(rows + 1 + C.nnz()) * sizeof(I);
  const std::uint64_t value_bytes = kValues ? static_cast<std::uint64_t>(C.nnz()) *
                                                  (sizeof(typename Graph<I, V>::stored_value_type) +
                                                   (std::is_same_v<V, float> ? 0 : sizeof(float)))
                                            : 0;
  EXPECT_EQ(transfer_stats().graph_upload_bytes, a_structure + value_bytes) << type;
  EXPECT_TRUE(cuda_test::same_result(got, want, false)) << type;
}

TEST(MxvCuda, TransposeSortedOnTheDeviceEqualsTheHostTranspose) {
  SPINDLE_REQUIRE_CUDA();
  expect_device_transpose_matches_host<std::int32_t, float>(81);
  expect_device_transpose_matches_host<std::int32_t, double>(82);
  expect_device_transpose_matches_host<std::int32_t, Pattern>(83);
  expect_device_transpose_matches_host<std::int64_t, float>(84);
  expect_device_transpose_matches_host<std::int64_t, double>(85);
  expect_device_transpose_matches_host<std::int64_t, Pattern>(86);
}
#endif

}  // namespace
}  // namespace spindle
