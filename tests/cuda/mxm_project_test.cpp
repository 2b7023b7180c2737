// SPDX-License-Identifier: Apache-2.0
// The projected SpMM (ops/cuda/mxm/mxm_project.hpp): Z = ReLU(A·B + bias)·W in one pass of
// nnz_balanced_seq's group form, against a naive layer computed here in double, on the test
// shapes (empty rows, rows crossing chunks, a 5000-entry row), a graph large enough for the
// group form by the planner's rule, and the real graphs. Also when it must decline (and leave Z
// as it was) and how it checks shapes. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda/cuda_test_util.hpp"
#include "cuda/mxm_test_util.hpp"
#include "ops/cuda/mxm/mxm_project.hpp"
#include "spindle/loaders/load_graph.hpp"

namespace spindle::test {
namespace {

/// The test hook for a scope.
struct ForceProjected {
  ForceProjected() { detail::cuda::debug_mxm_project_force(true); }
  ~ForceProjected() { detail::cuda::debug_mxm_project_force(false); }
};

/// Z = ReLU(A·B + bias)·W in double, and each entry's size: the sum of its terms' magnitudes
/// (through |h| from the sums of |a·b|), which bounds the rounding of any summation order.
struct Reference {
  std::vector<double> z, size;
};

template <class T, class I>
Reference naive_layer(const Graph<I, T>& A, const DenseMatrix<T>& B, const Vector<T>& bias,
                      const DenseMatrix<T>& W) {
  const std::int64_t n = B.cols(), m = W.cols();
  Reference r;
  r.z.assign(static_cast<std::size_t>(A.rows() * m), 0.0);
  r.size.assign(r.z.size(), 0.0);
  std::vector<double> h(static_cast<std::size_t>(n)), hs(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < A.rows(); ++i) {
    for (std::int64_t c = 0; c < n; ++c) {
      h[c] = static_cast<double>(bias[c]);
      hs[c] = std::fabs(h[c]);
    }
    for (I k = A.row_ptr()[i]; k < A.row_ptr()[i + 1]; ++k) {
      const double a = static_cast<double>(A.values()[k]);
      const T* brow = B.data() + static_cast<std::int64_t>(A.col_idx()[k]) * n;
      for (std::int64_t c = 0; c < n; ++c) {
        h[c] += a * static_cast<double>(brow[c]);
        hs[c] += std::fabs(a * static_cast<double>(brow[c]));
      }
    }
    for (std::int64_t j = 0; j < m; ++j) {
      double z = 0, s = 0;
      for (std::int64_t c = 0; c < n; ++c) {
        const double w = static_cast<double>(W.data()[c * m + j]);
        z += (h[c] > 0 ? h[c] : 0.0) * w;
        s += hs[c] * std::fabs(w);
      }
      r.z[static_cast<std::size_t>(i * m + j)] = z;
      r.size[static_cast<std::size_t>(i * m + j)] = s;
    }
  }
  return r;
}

template <class T>
Vector<T> random_bias(std::int64_t n, std::uint64_t seed) {
  const DenseMatrix<T> d = random_dense<T>(1, n, seed);
  return Vector<T>(std::vector<T>(d.data(), d.data() + n));
}

/// Runs the projected SpMM and checks it against naive_layer; returns whether it ran.
template <class T, class I>
::testing::AssertionResult projected_matches(const Graph<I, T>& A, std::int64_t n, std::int64_t m,
                                             std::uint64_t seed, bool* ran,
                                             const Descriptor& desc = Descriptor()) {
  const DenseMatrix<T> B = random_dense<T>(A.cols(), n, seed);
  const DenseMatrix<T> W = random_dense<T>(n, m, seed + 1);
  const Vector<T> bias = random_bias<T>(n, seed + 2);
  DenseMatrix<T> Z(A.rows(), m, T(7));
  {
    cuda_test::PoisonOutputs poison;
    *ran = detail::cuda::mxm_relu_project(Z, A, B, bias, W, desc);
  }
  const T* z = static_cast<const DenseMatrix<T>&>(Z).data();
  if (!*ran) {  // declined: Z as it was
    for (std::int64_t e = 0; e < Z.size(); ++e) {
      if (z[e] != T(7)) {
        return ::testing::AssertionFailure() << "declined but changed Z at " << e << ": " << z[e];
      }
    }
    return ::testing::AssertionSuccess();
  }
  if (Z.rows() != A.rows() || Z.cols() != m) {
    return ::testing::AssertionFailure() << "Z is " << Z.rows() << " x " << Z.cols();
  }
  const Reference ref = naive_layer(A, B, bias, W);
  const double eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t e = 0; e < Z.size(); ++e) {
    const double got = static_cast<double>(z[e]);
    const double tol = 8.0 * eps * (ref.size[e] + 1.0);
    if (!(std::fabs(got - ref.z[e]) <= tol)) {
      return ::testing::AssertionFailure()
             << "Z(" << e / m << ", " << e % m << ") = " << got << ", naive " << ref.z[e]
             << " (tolerance " << tol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

struct WidthCase {
  std::int64_t n, m;
  bool fits_float, fits_double;  // mxm_relu_project.hpp's limits, worked out by hand
};

// Group lanes G and fragment width per N (nnz_balanced_seq.cuh's balanced_group_vec): floats
// N = 1: 1 x 1; 3: 4 x 1; 16: 8 x 2; 30: 16 x 2; 64: 16 x 4; 100, 128: 32 x 4; doubles N = 16:
// 16 x 1, 30: 16 x 2, 64: 32 x 2. Z fits 2G columns, W 32 KB, and one tile must hold N
// (doubles: at most 32 x 2 = 64 columns).
// Float's group form is compiled for 8- and 16-byte fragments only (spmm_group_form_fits): N must
// be even up to 16 and a multiple of 4 above, so N = 1, 3 and 30 decline in float and run in
// double (fragments of 1 and 2 doubles).
const WidthCase kWidths[] = {
    {1, 2, false, true},    {1, 3, false, false},   {3, 5, false, true},    {6, 6, true, true},
    {16, 8, true, true},    {16, 17, false, true},  {30, 32, false, true},  {64, 32, true, true},
    {100, 17, true, false}, {128, 32, true, false}, {128, 64, true, false}, {128, 65, false, false},
    {256, 8, false, false},
};

template <class T, class I>
void check_shapes() {
  ForceProjected force;
  for (Shape s : {Shape::PowerLaw, Shape::DenseRow5000, Shape::MostlyEmpty, Shape::Uniform,
                  Shape::LongRows, Shape::Tiny}) {
    const auto A = to_graph<I, T>(make_shape(s, 11));
    for (const WidthCase& c : kWidths) {
      SCOPED_TRACE(std::string(shape_name(s)) + " N = " + std::to_string(c.n) +
                   ", M = " + std::to_string(c.m) + (sizeof(T) == 4 ? " float" : " double") +
                   (sizeof(I) == 4 ? " int32" : " int64"));
      bool ran = false;
      EXPECT_TRUE(projected_matches(A, c.n, c.m, 100 + c.n, &ran));
      EXPECT_EQ(ran, sizeof(T) == 4 ? c.fits_float : c.fits_double);
    }
  }
}

TEST(MxmProjectCuda, MatchesANaiveLayerOnEveryShapeFloatInt32) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_shapes<float, std::int32_t>();
}
TEST(MxmProjectCuda, MatchesANaiveLayerOnEveryShapeFloatInt64) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_shapes<float, std::int64_t>();
}
TEST(MxmProjectCuda, MatchesANaiveLayerOnEveryShapeDoubleInt32) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_shapes<double, std::int32_t>();
}
TEST(MxmProjectCuda, MatchesANaiveLayerOnEveryShapeDoubleInt64) {
  SPINDLE_SKIP_WITHOUT_GPU();
  check_shapes<double, std::int64_t>();
}

/// A graph of 1.2 M entries (the group form's rule needs 2^20) with skewed rows, some longer
/// than a chunk.
Graph<std::int32_t, float> big_skewed(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::int64_t rows = 40000, cols = 40000;
  std::vector<std::int32_t> rp{0}, ci;
  std::vector<float> val;
  for (std::int64_t i = 0; i < rows; ++i) {
    std::int64_t len = i % 997 == 5 ? 3000 + static_cast<std::int64_t>(rng() % 2000)
                                    : static_cast<std::int64_t>(rng() % 60);
    if (i % 13 == 0) len = 0;
    std::vector<std::int32_t> cs;
    for (std::int64_t k = 0; k < len; ++k) cs.push_back(static_cast<std::int32_t>(rng() % cols));
    std::sort(cs.begin(), cs.end());
    cs.erase(std::unique(cs.begin(), cs.end()), cs.end());
    for (auto j : cs) {
      ci.push_back(j);
      val.push_back(static_cast<float>(1 + rng() % 8) / 8.0f);
    }
    rp.push_back(static_cast<std::int32_t>(ci.size()));
  }
  return Graph<std::int32_t, float>(static_cast<std::int32_t>(rows),
                                    static_cast<std::int32_t>(cols), std::move(rp), std::move(ci),
                                    std::move(val));
}

TEST(MxmProjectCuda, RunsWhereTheKernelIsTheGroupFormAndDeclinesElsewhere) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto big = big_skewed(5);
  ASSERT_GE(big.nnz(), 1 << 20);
  bool ran = false;
  // nnz_balanced_seq forced: above 2^20 entries at G >= 4 lanes it runs the group form.
  EXPECT_TRUE(
      projected_matches(big, 32, 16, 1, &ran, Descriptor().force(MxmKernel::NnzBalancedSeq)));
  EXPECT_TRUE(ran);
  EXPECT_TRUE(
      projected_matches(big, 128, 32, 2, &ran, Descriptor().force(MxmKernel::NnzBalancedSeq)));
  EXPECT_TRUE(ran);
  // Another kernel forced: declined (Z untouched).
  EXPECT_TRUE(projected_matches(big, 32, 16, 3, &ran, Descriptor().force(MxmKernel::RowCacheSeq)));
  EXPECT_FALSE(ran);
  // A small graph, the planner choosing: never the group form there.
  const auto small = to_graph<std::int32_t, float>(make_shape(Shape::Uniform, 2));
  EXPECT_TRUE(projected_matches(small, 32, 16, 4, &ran));
  EXPECT_FALSE(ran);
  // Transposes are not served, even with the hook.
  ForceProjected force;
  Descriptor t;
  t.transpose_a = true;
  EXPECT_TRUE(projected_matches(small, 32, 16, 5, &ran, t));
  EXPECT_FALSE(ran);
}

TEST(MxmProjectCuda, ShapesThatDoNotChainThrowDimensionMismatch) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const auto A = to_graph<std::int32_t, float>(make_shape(Shape::Uniform, 3));
  const DenseMatrix<float> B = random_dense<float>(A.cols(), 32, 1);
  const Vector<float> bias = random_bias<float>(32, 2);
  DenseMatrix<float> Z;
  EXPECT_THROW(detail::cuda::mxm_relu_project(Z, A, random_dense<float>(A.cols() + 1, 32, 1), bias,
                                              random_dense<float>(32, 8, 3), Descriptor()),
               DimensionMismatch);
  EXPECT_THROW(detail::cuda::mxm_relu_project(Z, A, B, random_bias<float>(31, 2),
                                              random_dense<float>(32, 8, 3), Descriptor()),
               DimensionMismatch);
  EXPECT_THROW(
      detail::cuda::mxm_relu_project(Z, A, B, bias, random_dense<float>(33, 8, 3), Descriptor()),
      DimensionMismatch);
}

TEST(MxmProjectCuda, MatchesANaiveLayerOnTheDataFolderGraphs) {
  SPINDLE_SKIP_WITHOUT_GPU();
  const std::string dir = std::string(SPINDLE_DATA_DIR) + "/graphs";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no data folder at " << dir;
  ForceProjected force;
  int checked = 0;
  for (const char* f : {"1138_bus.mtx", "bcsstk13.mtx", "as20graph.txt", "email-Eu-core.csv",
                        "C-elegans-frontal.txt"}) {
    const std::string path = dir + "/" + f;
    if (!std::filesystem::exists(path)) continue;
    const auto A = load_graph<std::int32_t, float>(path).graph;
    for (const auto& [n, m] : {std::pair<int, int>{128, 32}, {16, 8}, {6, 6}}) {
      SCOPED_TRACE(std::string(f) + " N = " + std::to_string(n) + ", M = " + std::to_string(m));
      bool ran = false;
      EXPECT_TRUE(projected_matches(A, n, m, 7, &ran));
      EXPECT_TRUE(ran);
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace spindle::test
