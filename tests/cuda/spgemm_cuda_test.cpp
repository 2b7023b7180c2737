// SPDX-License-Identifier: Apache-2.0
// The CUDA sparse x sparse mxm against the CPU backend (itself checked against a std::map oracle
// in tests/ops/mxm_sparse_test.cpp): every built-in semiring, float/double values, pattern
// operands, int32/int64 indices; each bin of the row-wise form alone (ESC, every shared-memory
// table, dense slabs) and together; the masked dot form; masks, accumulators and replace through
// the public API; real graphs and triangle counts; outputs that cannot fit. Values are quarters
// of small integers, so every sum is exact in float in any order and results compare exactly.
// Outputs are poisoned before the kernels run. GPU tests: skipped without a device.
//
// SPINDLE_TEST_SEMIRING=<name> (e.g. plus_times) restricts the semiring loops to one semiring,
// so that compute-sanitizer runs (racecheck is slow on 48 KB shared-memory tables) can be split
// over several processes; unset, every semiring runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/core/spgemm.hpp"
#include "spindle/algorithms/triangles.hpp"
#include "spindle/loaders/load_graph.hpp"
#include "spindle/ops.hpp"

namespace spindle {
namespace {

// Whether the semiring loops run `kind` (SPINDLE_TEST_SEMIRING, see the file comment).
bool semiring_selected(SemiringKind kind) {
  const char* only = std::getenv("SPINDLE_TEST_SEMIRING");
  return only == nullptr || *only == '\0' || std::string(to_string(kind)) == only;
}

// A random matrix whose rows reach every bin when multiplied by another: most rows short (ESC
// and the small tables), some of 40-400 entries, and one row of `long_row` entries.
template <class I, class V>
Graph<I, V> random_matrix(std::int64_t rows, std::int64_t cols, std::int64_t long_row,
                          std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<I> rp(static_cast<std::size_t>(rows) + 1, 0);
  std::vector<I> ci;
  std::vector<typename Graph<I, V>::stored_value_type> vals;
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::uint64_t r = rng() % 100;
    std::int64_t len = r < 15   ? 0
                       : r < 70 ? static_cast<std::int64_t>(rng() % 6)
                       : r < 95 ? static_cast<std::int64_t>(rng() % 40)
                                : 40 + static_cast<std::int64_t>(rng() % 360);
    if (i == rows / 3) len = long_row;
    len = std::min(len, cols);
    std::map<std::int64_t, int> row;
    while (static_cast<std::int64_t>(row.size()) < len) {
      row[static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cols))] =
          static_cast<int>(rng() % 17) - 6;
    }
    for (const auto& [j, v] : row) {
      ci.push_back(static_cast<I>(j));
      if constexpr (!is_pattern_v<V>) vals.push_back(static_cast<V>(v) / V(4));
    }
    rp[i + 1] = static_cast<I>(ci.size());
  }
  return Graph<I, V>(static_cast<I>(rows), static_cast<I>(cols), std::move(rp), std::move(ci),
                     std::move(vals));
}

// g with values of type T (pattern: every entry 1).
template <class T, class I, class V>
Graph<I, T> with_values(const Graph<I, V>& g) {
  std::vector<T> v(static_cast<std::size_t>(g.nnz()), T(1));
  if constexpr (!is_pattern_v<V>) {
    for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<T>(g.values()[k]);
  }
  return Graph<I, T>(g.rows(), g.cols(), g.row_ptr(), g.col_idx(), std::move(v));
}

template <class I, class T>
::testing::AssertionResult same_matrix(const Graph<I, T>& got, const Graph<I, T>& want) {
  if (got.rows() != want.rows() || got.cols() != want.cols()) {
    return ::testing::AssertionFailure() << "shape " << got.rows() << "x" << got.cols() << " vs "
                                         << want.rows() << "x" << want.cols();
  }
  if (got.row_ptr() != want.row_ptr()) {
    for (std::int64_t i = 0; i < want.rows(); ++i) {
      if (got.row_ptr()[i + 1] - got.row_ptr()[i] != want.row_ptr()[i + 1] - want.row_ptr()[i]) {
        return ::testing::AssertionFailure()
               << "row " << i << " has " << got.row_ptr()[i + 1] - got.row_ptr()[i]
               << " entries, want " << want.row_ptr()[i + 1] - want.row_ptr()[i];
      }
    }
  }
  for (std::size_t k = 0; k < want.col_idx().size(); ++k) {
    if (got.col_idx()[k] != want.col_idx()[k] ||
        !(got.values()[k] == want.values()[k] ||
          (got.values()[k] != got.values()[k] && want.values()[k] != want.values()[k]))) {
      return ::testing::AssertionFailure()
             << "entry " << k << ": (" << got.col_idx()[k] << ", " << got.values()[k] << ") want ("
             << want.col_idx()[k] << ", " << want.values()[k] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

template <class I, class T>
detail::CsrView<I, T> view(const Graph<I, T>& g) {
  return {g.rows(), g.cols(), g.row_ptr().data(), g.col_idx().data(), g.value_ptr()};
}

// The row-wise form with its bins restricted: {esc_max, table_max}.
struct BinCase {
  int esc_max;
  int table_max;
  const char* name;
};
constexpr BinCase kBinCases[] = {{32, 8192, "all bins"},
                                 {0, 0, "dense slabs only"},
                                 {32, 0, "ESC + dense"},
                                 {0, 128, "128-slot tables + dense"},
                                 {0, 512, "512-slot tables + dense"},
                                 {0, 2048, "2048-slot tables + dense"},
                                 {0, 8192, "tables only up to 8192"}};

// C = A ⊕.⊗ B by the CUDA host entry with the given bins, as a graph.
template <class S, class I>
Graph<I, typename S::value_type> cuda_product(const Graph<I, typename S::value_type>& A,
                                              const Graph<I, typename S::value_type>& B,
                                              const BinCase& bins) {
  using T = typename S::value_type;
  Plan p;
  p.op = OpKind::Mxm;
  p.device = Device::Cuda;
  p.spgemm = SpgemmKernel::CudaRowwise;
  p.params.items_per_worker = bins.esc_max;
  p.params.tile = bins.table_max;
  detail::CsrArrays<I, T> out;
  {
    cuda_test::PoisonOutputs poison;
    detail::cuda::spgemm_cuda_host<T, I>(p, S::kind, view(A), view(B), nullptr,
                                         detail::MaskView<I>{}, out);
  }
  return Graph<I, T>(A.rows(), B.cols(), std::move(out.rp), std::move(out.ci), std::move(out.v));
}

template <class T, class I, class V>
void every_semiring_every_bin(std::uint64_t seed) {
  // 10000 columns: a row of 300 entries times B's rows (about 30 each) has a bound over 4096,
  // so the dense slabs run beside the tables.
  const auto Av = random_matrix<I, V>(700, 900, 300, seed);
  const auto Bv = random_matrix<I, V>(900, 10000, 2000, seed + 1);
  const Graph<I, T> A = with_values<T>(Av);
  const Graph<I, T> B = with_values<T>(Bv);
  for (const SemiringKind kind : kBuiltinSemirings) {
    if (!semiring_selected(kind)) continue;
    visit_semiring<T>(kind, [&](auto s) {
      using S = decltype(s);
      Graph<I, T> want;
      mxm(want, S{}, Av, Bv, Descriptor().on(Device::Cpu));
      for (const BinCase& bins : kBinCases) {
        const Graph<I, T> got = cuda_product<S, I>(A, B, bins);
        EXPECT_TRUE(same_matrix(got, want))
            << to_string(kind) << " " << bins.name << " " << to_string(value_kind_of<T>())
            << " indices " << sizeof(I) * 8 << (is_pattern_v<V> ? " pattern operands" : "");
      }
      // The public API on CUDA (the planner's bins).
      Graph<I, T> api;
      {
        cuda_test::PoisonOutputs poison;
        mxm(api, S{}, Av, Bv, Descriptor().on(Device::Cuda).force(SpgemmKernel::CudaRowwise));
      }
      EXPECT_TRUE(same_matrix(api, want)) << to_string(kind) << " via mxm";
    });
  }
}

TEST(SpgemmCuda, EverySemiringAndBinMatchesCpuFloat) {
  SPINDLE_REQUIRE_CUDA();
  every_semiring_every_bin<float, std::int32_t, float>(11);
  every_semiring_every_bin<float, std::int64_t, Pattern>(12);
}

TEST(SpgemmCuda, EverySemiringAndBinMatchesCpuDouble) {
  SPINDLE_REQUIRE_CUDA();
  every_semiring_every_bin<double, std::int64_t, double>(13);
  every_semiring_every_bin<double, std::int32_t, Pattern>(14);
}

template <class S, class I>
void check_masks(std::uint64_t seed) {
  using T = typename S::value_type;
  if (!semiring_selected(S::kind)) return;
  const auto A = random_matrix<I, T>(400, 300, 200, seed);
  const auto B = random_matrix<I, T>(300, 5000, 1500, seed + 1);
  const auto Mv = random_matrix<I, T>(400, 5000, 3000, seed + 2);
  const auto Cold = random_matrix<I, T>(400, 5000, 100, seed + 3);
  for (const bool valued : {false, true}) {
    for (const bool complement : {false, true}) {
      const MatrixMask mask =
          valued ? MatrixMask::value(Mv, complement) : MatrixMask::structural(Mv, complement);
      for (const bool replace : {false, true}) {
        for (const bool accum : {false, true}) {
          const Accum acc = accum ? Accum::plus() : Accum::none();
          Descriptor cpu = Descriptor().on(Device::Cpu);
          if (replace) cpu = cpu.with_replace();
          Graph<I, T> want = Cold;
          mxm(want, mask, acc, S{}, A, B, cpu);
          for (const SpgemmKernel k : {SpgemmKernel::CudaRowwise, SpgemmKernel::CudaMaskedDot}) {
            if (k == SpgemmKernel::CudaMaskedDot && complement) continue;
            Descriptor gpu = Descriptor().on(Device::Cuda).force(k);
            if (replace) gpu = gpu.with_replace();
            Graph<I, T> got = Cold;
            {
              cuda_test::PoisonOutputs poison;
              mxm(got, mask, acc, S{}, A, B, gpu);
            }
            EXPECT_TRUE(same_matrix(got, want))
                << to_string(k) << (valued ? " valued" : " structural")
                << (complement ? " complemented" : "") << (replace ? " replace" : "")
                << (accum ? " accum" : "") << " " << to_string(S::kind);
            EXPECT_EQ(plan_for_mxm<S>(mask, A, B, gpu).spgemm, k);
          }
        }
      }
    }
  }
}

TEST(SpgemmCuda, MasksAccumulatorsAndReplaceMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  check_masks<semiring::plus_times<float>, std::int32_t>(21);
  check_masks<semiring::min_plus<double>, std::int64_t>(22);
  check_masks<semiring::plus_pair<float>, std::int64_t>(23);
}

TEST(SpgemmCuda, TransposesAndDegenerateShapes) {
  SPINDLE_REQUIRE_CUDA();
  using S = semiring::plus_times<double>;
  const auto A = random_matrix<std::int32_t, double>(300, 200, 150, 31);
  const auto B = random_matrix<std::int32_t, double>(300, 250, 100, 32);
  Graph<std::int32_t, double> want;
  Graph<std::int32_t, double> got;
  mxm(want, S{}, A, B, Descriptor().on(Device::Cpu).with_transpose_a());
  mxm(got, S{}, A, B, Descriptor().on(Device::Cuda).with_transpose_a());
  EXPECT_TRUE(same_matrix(got, want));
  mxm(want, S{}, A, A, Descriptor().on(Device::Cpu).with_transpose_b());
  mxm(got, S{}, A, A,
      Descriptor().on(Device::Cuda).with_transpose_b().force(SpgemmKernel::CudaRowwise));
  EXPECT_TRUE(same_matrix(got, want));
  // Empty operands, an empty row range, and a product with no entries.
  const Graph<std::int32_t, double> empty(300, 250, std::vector<std::int32_t>(301, 0), {}, {});
  mxm(got, S{}, empty, B.transpose(), Descriptor().on(Device::Cuda));
  EXPECT_EQ(got.nnz(), 0);
  EXPECT_EQ(got.rows(), 300);
  const Graph<std::int32_t, double> one_col(3, 2, {0, 1, 1, 1}, {0}, {2.0});
  const Graph<std::int32_t, double> other(2, 2, {0, 0, 1}, {1}, {3.0});
  mxm(got, S{}, one_col, other, Descriptor().on(Device::Cuda).force(SpgemmKernel::CudaRowwise));
  EXPECT_EQ(got.nnz(), 0);  // A's column 0 meets B's empty row 0
}

TEST(SpgemmCuda, RealGraphsAndTriangleCountsMatchCpu) {
  SPINDLE_REQUIRE_CUDA();
  const std::string dir = std::string(SPINDLE_DATA_DIR) + "/graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no data folder at " << dir;
  int ran = 0;
  for (const char* f : {"as20graph.txt", "email-Eu-core.csv", "C-elegans-frontal.txt",
                        "bcsstk13.mtx", "karate.mtx", "cugraph_dolphins.mtx", "1138_bus.mtx"}) {
    const std::string path = dir + "/" + f;
    if (!std::filesystem::exists(path)) continue;
    const auto A = load_graph<std::int32_t, float>(path).graph;
    if (A.rows() != A.cols()) continue;
    ++ran;
    // Real weights are not quarters: sums (with cancellation in the stiffness matrices) round
    // differently in another order, within the float error of Σ |products| (|A|·|A|).
    std::vector<float> absv(A.values().begin(), A.values().end());
    for (float& x : absv) x = std::fabs(x);
    const Graph<std::int32_t, float> Aabs(A.rows(), A.cols(), A.row_ptr(), A.col_idx(), absv);
    Graph<std::int32_t, float> scale;
    mxm(scale, semiring::plus_times<float>{}, Aabs, Aabs, Descriptor().on(Device::Cpu));
    for (const SpgemmKernel k : {SpgemmKernel::Auto, SpgemmKernel::CudaRowwise}) {
      Graph<std::int32_t, float> want;
      Graph<std::int32_t, float> got;
      mxm(want, semiring::plus_times<float>{}, A, A, Descriptor().on(Device::Cpu));
      {
        cuda_test::PoisonOutputs poison;
        mxm(got, semiring::plus_times<float>{}, A, A, Descriptor().on(Device::Cuda).force(k));
      }
      ASSERT_EQ(got.row_ptr(), want.row_ptr()) << f;
      ASSERT_EQ(got.col_idx(), want.col_idx()) << f;
      for (std::size_t e = 0; e < want.values().size(); ++e) {
        ASSERT_NEAR(got.values()[e], want.values()[e],
                    1e-5 * (1.0 + static_cast<double>(scale.values()[e])))
            << f << " entry " << e;
      }
    }
    TriangleOptions cpu;
    cpu.device = Device::Cpu;
    cpu.clustering = true;
    TriangleOptions gpu = cpu;
    gpu.device = Device::Cuda;
    const TriangleResult want = triangles(A, cpu);
    for (const SpgemmKernel k :
         {SpgemmKernel::Auto, SpgemmKernel::CudaMaskedDot, SpgemmKernel::CudaRowwise}) {
      gpu.kernel = k;
      const TriangleResult got = triangles(A, gpu);
      EXPECT_EQ(got.total, want.total) << f << " " << to_string(k);
      EXPECT_EQ(got.per_vertex, want.per_vertex) << f << " " << to_string(k);
      EXPECT_EQ(got.clustering, want.clustering) << f << " " << to_string(k);
    }
  }
  EXPECT_GT(ran, 3);
}

TEST(SpgemmCuda, OutputsThatCannotFitAreRefused) {
  SPINDLE_REQUIRE_CUDA();
  // A column of 2^17 ones times a row of 2^17 ones: 2^34 entries.
  const std::int64_t n = std::int64_t{1} << 17;
  auto outer = [&](auto index_tag) {
    using I = decltype(index_tag);
    std::vector<I> arp(static_cast<std::size_t>(n) + 1);
    for (std::int64_t i = 0; i <= n; ++i) arp[i] = static_cast<I>(i);
    const Graph<I, float> A(static_cast<I>(n), 1, std::move(arp), std::vector<I>(n, 0),
                            std::vector<float>(n, 1.0f));
    std::vector<I> bci(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) bci[j] = static_cast<I>(j);
    const Graph<I, float> B(1, static_cast<I>(n), {0, static_cast<I>(n)}, std::move(bci),
                            std::vector<float>(n, 1.0f));
    return std::make_pair(A, B);
  };
  {
    const auto [A, B] = outer(std::int64_t{});
    try {
      cuda_product<semiring::plus_times<float>, std::int64_t>(A, B, kBinCases[0]);
      FAIL() << "expected OutOfMemory";
    } catch (const OutOfMemory& e) {
      EXPECT_NE(std::string(e.what()).find("17179869184 entries"), std::string::npos) << e.what();
    }
    Graph<std::int64_t, float> C;
    EXPECT_THROW(mxm(C, semiring::plus_times<float>{}, A, B, Descriptor().on(Device::Cuda)),
                 OutOfMemory);
  }
  {
    const auto [A, B] = outer(std::int32_t{});
    try {
      cuda_product<semiring::plus_times<float>, std::int32_t>(A, B, kBinCases[0]);
      FAIL() << "expected InvalidArgument";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("index type"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace spindle
