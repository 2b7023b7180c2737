// SPDX-License-Identifier: Apache-2.0
// The cuBLAS dense product (ops/cuda/gemm) against a naive double-precision product: the plain
// path, tuning mode (timed once per shape, then the remembered winner) and, through the test
// hook, every algorithm of cublasLt's heuristic list that tuning may pick; and the split-TF32
// kernel (ops/cuda/gemm/split_tf32.hpp) through its test hook, against the same oracle and against
// cuBLAS's FP32 error on the same data.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "cuda_test_util.hpp"
#include "ops/cuda/gemm/gemm.hpp"
#include "ops/cuda/gemm/split_tf32.hpp"
#include "spindle/algorithms/gcn.hpp"
#include "spindle/ops/gemm.hpp"

namespace spindle {
namespace {

using Shape = std::array<std::int64_t, 3>;  // m, k, n

/// Clears the TF32 and split-TF32 switches (FP32 tolerances below; the split kernel where it
/// applies) and the forcing hook, and restores them.
class GemmCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      const char* v = std::getenv(kVars[i]);
      if (v != nullptr) saved_[i] = v;
      unsetenv(kVars[i]);
    }
  }
  void TearDown() override {
    detail::cuda::debug_gemm_force_lt(-1);
    detail::cuda::debug_split_tf32_force(-1);
    for (int i = 0; i < 2; ++i) {
      if (!saved_[i].empty()) {
        setenv(kVars[i], saved_[i].c_str(), 1);
      } else {
        unsetenv(kVars[i]);
      }
    }
  }
  static constexpr const char* kVars[2] = {"SPINDLE_GEMM_TF32", "SPINDLE_GEMM_SPLIT_TF32"};
  std::string saved_[2];
};

template <class T>
struct Problem {
  DenseMatrix<T> A, B;
  std::vector<double> ref;
  double scale = 1e-30;  // the largest sum of |products| of one element
};

template <class T>
Problem<T> make_problem(const Shape& s) {
  const auto [m, k, n] = s;
  Problem<T> p{random_features<T>(m, k, static_cast<std::uint64_t>(m + 2 * k)),
               random_features<T>(k, n, static_cast<std::uint64_t>(k + 3 * n + 1)),
               std::vector<double>(static_cast<std::size_t>(m * n), 0.0)};
  const DenseMatrix<T>& A = p.A;
  const DenseMatrix<T>& B = p.B;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0, mag = 0.0;
      for (std::int64_t t = 0; t < k; ++t) {
        sum += double(A(i, t)) * double(B(t, j));
        mag += std::fabs(double(A(i, t)) * double(B(t, j)));
      }
      p.ref[static_cast<std::size_t>(i * n + j)] = sum;
      p.scale = std::max(p.scale, mag);
    }
  return p;
}

/// The largest error of C against the naive product relative to the largest |products| sum (NaN
/// counts as infinite).
template <class T>
double rel_error(const DenseMatrix<T>& C, const Problem<T>& p) {
  double worst = 0.0;
  for (std::int64_t e = 0; e < C.size(); ++e) {
    const double d = std::fabs(double(C.data()[e]) - p.ref[static_cast<std::size_t>(e)]);
    worst = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(worst, d);
  }
  return worst / p.scale;
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> s{{2000, 128, 128}, {1001, 33, 7}, {3, 1, 5},
                                    {64, 0, 4},       {0, 8, 8},     {4097, 128, 32}};
  return s;
}

template <class T>
void check_tuned(double tol) {
  for (const Shape& s : shapes()) {
    const Problem<T> p = make_problem<T>(s);
    const auto [m, k, n] = s;
    for (int call = 0; call < 2; ++call) {
      DenseMatrix<T> C(m, n, std::numeric_limits<T>::quiet_NaN());
      const std::string summary = gemm_tuned(C, p.A, p.B, Device::Cuda);
      const std::string what = std::to_string(m) + "x" + std::to_string(k) + "x" +
                               std::to_string(n) + " call " + std::to_string(call) + ": " + summary;
      ASSERT_EQ(C.rows(), m) << what;
      ASSERT_EQ(C.cols(), n) << what;
      if (m == 0 || k == 0) {
        EXPECT_NE(summary.find("nothing to tune"), std::string::npos) << what;
      } else if (call == 1) {
        EXPECT_NE(summary.find("(cached: nothing timed)"), std::string::npos) << what;
      } else {
        // The first call of this process for the shape, unless the test is repeated.
        EXPECT_TRUE(summary.find("fastest of") != std::string::npos ||
                    summary.find("cached") != std::string::npos)
            << what;
      }
      const DenseMatrix<T>& Cc = C;
      EXPECT_LE(rel_error(Cc, p), tol) << what;
    }
  }
}

TEST_F(GemmCuda, TunedMatchesANaiveProductAndRemembersItsWinner) {
  SPINDLE_REQUIRE_CUDA();
  check_tuned<float>(1e-5);
  check_tuned<double>(1e-12);
}

// Every algorithm tuning may pick, run on its own: a wrong layout or operand order in the
// cublasLt path shows here whichever candidate wins the timing.
template <class T>
void check_every_lt_algorithm(double tol) {
  for (const Shape& s : shapes()) {
    const auto [m, k, n] = s;
    if (m == 0 || k == 0) continue;
    const Problem<T> p = make_problem<T>(s);
    int ran = 0;
    for (int i = 0; i < 8; ++i) {
      detail::cuda::debug_gemm_force_lt(i);
      DenseMatrix<T> C(m, n, std::numeric_limits<T>::quiet_NaN());
      std::string summary;
      try {
        summary = gemm_tuned(C, p.A, p.B, Device::Cuda);
      } catch (const InvalidArgument&) {
        break;  // the heuristic list is shorter
      }
      ++ran;
      const std::string what =
          std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ": " + summary;
      EXPECT_NE(summary.find("forced"), std::string::npos) << what;
      const DenseMatrix<T>& Cc = C;
      EXPECT_LE(rel_error(Cc, p), tol) << what;
    }
    detail::cuda::debug_gemm_force_lt(-1);
    EXPECT_GE(ran, 1) << m << "x" << k << "x" << n << ": cublasLt offered no algorithm";
  }
}

TEST_F(GemmCuda, EveryCublasLtCandidateMatchesANaiveProduct) {
  SPINDLE_REQUIRE_CUDA();
  check_every_lt_algorithm<float>(1e-5);
  check_every_lt_algorithm<double>(1e-12);
}

TEST_F(GemmCuda, PlainProductMatchesANaiveProduct) {
  SPINDLE_REQUIRE_CUDA();
  for (const char* split : {"1", "0"}) {  // the split-TF32 kernel where it applies; cuBLAS only
    setenv("SPINDLE_GEMM_SPLIT_TF32", split, 1);
    for (const Shape& s : shapes()) {
      const Problem<float> p = make_problem<float>(s);
      DenseMatrix<float> C(s[0], s[2], std::numeric_limits<float>::quiet_NaN());
      gemm(C, p.A, p.B, Device::Cuda);
      const DenseMatrix<float>& Cc = C;
      EXPECT_LE(rel_error(Cc, p), 1e-5)
          << s[0] << "x" << s[1] << "x" << s[2] << " SPINDLE_GEMM_SPLIT_TF32=" << split;
    }
  }
}

/// C = A · B by the split-TF32 kernel (the test hook: no fallback to cuBLAS), into a
/// NaN-poisoned output, downloaded.
DenseMatrix<float> run_split(const DenseMatrix<float>& A, const DenseMatrix<float>& B) {
  DenseMatrix<float> C(A.rows(), B.cols(), std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(detail::cuda::debug_split_tf32_gemm(C, A, B))
      << A.rows() << "x" << A.cols() << "x" << B.cols() << ": the split kernel refused";
  const DenseMatrix<float>& Cc = C;
  (void)Cc.data();  // const access: one download
  return C;
}

// Every blocking (tiled and resident, forced in turn; a resident one that cannot take the shape
// falls back to the default), partial row, column and k tiles, k shorter than one slab, k = 0,
// and enough rows for the persistent forms to walk several tiles per block: against the
// double-precision oracle, and within a small factor of cuBLAS's own FP32 error on the same data
// (FP32 accuracy, not TF32's 1e-3).
TEST_F(GemmCuda, SplitTf32MatchesANaiveProductToFp32Accuracy) {
  SPINDLE_REQUIRE_CUDA();
  if (device_caps().cc_major < 8) GTEST_SKIP() << "tensor-core TF32 needs sm_80";
  const std::vector<Shape> cases{{2000, 128, 128},
                                 {4097, 128, 32},
                                 {1, 4, 4},
                                 {129, 36, 36},
                                 {300, 100, 132},
                                 {257, 64, 64},
                                 {50, 512, 20},
                                 {77, 0, 8},
                                 {130, 8, 200},
                                 {3000, 256, 12},
                                 // several row tiles per block of the persistent forms
                                 {40000, 128, 128},
                                 {70001, 36, 32}};
  for (const Shape& s : cases) {
    const Problem<float> p = make_problem<float>(s);
    setenv("SPINDLE_GEMM_SPLIT_TF32", "0", 1);
    DenseMatrix<float> ref(s[0], s[2], std::numeric_limits<float>::quiet_NaN());
    gemm(ref, p.A, p.B, Device::Cuda);
    unsetenv("SPINDLE_GEMM_SPLIT_TF32");
    const DenseMatrix<float>& refc = ref;
    const double cublas_err = rel_error(refc, p);
    // The default blocking for n, then every blocking forced (tuning and the benchmarks use them).
    for (int b = -1; b < detail::cuda::debug_split_tf32_blockings(); ++b) {
      const char* name = detail::cuda::debug_split_tf32_force(b);
      const std::string what = std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" +
                               std::to_string(s[2]) + " blocking " +
                               (name != nullptr ? name : "default");
      const DenseMatrix<float> C = run_split(p.A, p.B);
      const double err = rel_error(C, p);
      EXPECT_LE(err, 1e-5) << what;
      EXPECT_LE(err, std::max(4.0 * cublas_err, 1e-6)) << what << ": cuBLAS FP32 " << cublas_err;
    }
    detail::cuda::debug_split_tf32_force(-1);
  }
}

// Values whose TF32 rounding would overflow (within 2^-12 of FLT_MAX) stay finite, a product of
// large and small magnitudes keeps the small one's contribution (the lo parts), and infinities
// and NaNs come out where an FP32 product puts them (inf · 0 is NaN in both).
TEST_F(GemmCuda, SplitTf32KeepsExtremeMagnitudes) {
  SPINDLE_REQUIRE_CUDA();
  if (device_caps().cc_major < 8) GTEST_SKIP() << "tensor-core TF32 needs sm_80";
  const float big = std::numeric_limits<float>::max() * 0.99999f;
  const float inf = std::numeric_limits<float>::infinity();
  DenseMatrix<float> A(6, 4, 0.0f), B(4, 4, 0.0f);
  for (int i = 0; i < 4; ++i) B(i, i) = 1.0f;  // C = A where A is finite
  A(0, 0) = big;
  A(1, 1) = -big;
  A(1, 2) = std::numeric_limits<float>::max();
  A(2, 0) = 1.0f + 0x1p-20f;  // hi = 1, lo = 2^-20: lost without the lo parts
  A(2, 3) = 3.0e-30f;
  A(3, 1) = inf;
  A(4, 2) = -inf;
  A(5, 3) = std::numeric_limits<float>::quiet_NaN();
  // The default blocking, then every blocking forced (the mma.sync and wgmma forms split alike).
  for (int b = -1; b < detail::cuda::debug_split_tf32_blockings(); ++b) {
    const char* name = detail::cuda::debug_split_tf32_force(b);
    const std::string which = name != nullptr ? name : "default";
    const DenseMatrix<float> C = run_split(A, B);
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 4; ++j) {
        double ref = 0.0;  // the FP32 product's special values: double follows the same rules
        for (int t = 0; t < 4; ++t) ref += double(A(i, t)) * double(B(t, j));
        const std::string at = which + " at " + std::to_string(i) + "," + std::to_string(j);
        if (std::isnan(ref)) {
          EXPECT_TRUE(std::isnan(C(i, j))) << at << ": " << C(i, j);
        } else if (std::isinf(ref)) {
          EXPECT_EQ(C(i, j), float(ref)) << at;
        } else {
          EXPECT_TRUE(std::isfinite(C(i, j))) << at << ": " << C(i, j);
          EXPECT_NEAR(C(i, j), ref, std::fabs(ref) * 0x1p-21) << at;
        }
      }
    EXPECT_EQ(C(2, 0), 1.0f + 0x1p-20f) << which;
  }
  detail::cuda::debug_split_tf32_force(-1);
}

// On Hopper, a build with the sm_90a form runs GCN's shapes (k, n <= 128) on wgmma (64 wide up
// to n = 64, 128 wide above); wider or deeper products keep the mma.sync forms. Forcing a
// wgmma blocking is honoured there (the tests above then run it).
TEST_F(GemmCuda, SplitTf32UsesWgmmaOnHopper) {
  SPINDLE_REQUIRE_CUDA();
  const DeviceCaps& caps = device_caps();
  if (caps.cc_major != 9 || caps.cc_minor != 0 || !detail::cuda::split_tf32_has_wgmma()) {
    GTEST_SKIP() << "needs a compute capability 9.0 device and a build for sm_90";
  }
  EXPECT_STREQ(detail::cuda::split_tf32_blocking(128, 128), "wgmma 2x64x128");
  EXPECT_STREQ(detail::cuda::split_tf32_blocking(32, 128), "wgmma 2x64x64");
  EXPECT_STREQ(detail::cuda::split_tf32_blocking(36, 36), "wgmma 2x64x64");
  EXPECT_STREQ(detail::cuda::split_tf32_blocking(100, 8), "wgmma 2x64x128");
  EXPECT_EQ(std::string(detail::cuda::split_tf32_blocking(132, 100)).rfind("wgmma", 0),
            std::string::npos);
  EXPECT_EQ(std::string(detail::cuda::split_tf32_blocking(64, 132)).rfind("wgmma", 0),
            std::string::npos);
  for (int b = 0; b < detail::cuda::debug_split_tf32_blockings(); ++b) {
    const std::string name = detail::cuda::debug_split_tf32_force(b);
    if (name.rfind("wgmma", 0) == 0) {
      EXPECT_EQ(detail::cuda::split_tf32_blocking(32, 64), name);
    }
  }
  detail::cuda::debug_split_tf32_force(-1);
}

// The two-product kernel (gemm_split_tf32_mlp): T = ReLU(A W1 + b1) W2 against a double oracle,
// on a compute capability 9.0 device: k, n1 and n2 at their limits and below, partial 64-row
// tiles, k = 0, several tiles per warpgroup (evenly and one short), no bias and no ReLU; and the
// refusals.
TEST_F(GemmCuda, SplitTf32PairMatchesADoubleOracle) {
  SPINDLE_REQUIRE_CUDA();
  if (!detail::cuda::split_tf32_mlp_applies(64, 128, 128, 32)) {
    EXPECT_FALSE(device_caps().cc_major == 9 && device_caps().cc_minor == 0 &&
                 detail::cuda::split_tf32_has_wgmma());
    GTEST_SKIP() << "needs a compute capability 9.0 device and a build for sm_90";
  }
  struct Case {
    std::int64_t m, k, n1, n2;
    bool bias, relu;
  };
  std::vector<Case> cases{{2000, 128, 128, 32, true, true}, {4097, 36, 100, 20, true, true},
                          {1, 4, 4, 4, true, true},         {77, 0, 8, 8, true, true},
                          {300, 64, 1, 4, true, false},     {129, 16, 64, 16, false, true},
                          {70001, 128, 128, 32, true, true}};
  // The warpgroups' turns (wgmma_tiles' TURNS) with the second warpgroup one tile short after
  // several turns: an odd number of 64-row tiles, 2 x 2 per block plus one, on this device's full
  // grid (one block per SM), the last tile partial.
  const std::int64_t sms = std::max(1, device_caps().sm_count);
  const std::int64_t uneven = 64 * (2 * sms * 2 + 1) - 13;
  cases.push_back({uneven, 128, 128, 32, true, true});
  cases.push_back({uneven, 36, 100, 20, true, false});
  for (const Case& c : cases) {
    const std::string what = std::to_string(c.m) + "x" + std::to_string(c.k) + "x" +
                             std::to_string(c.n1) + "x" + std::to_string(c.n2);
    const auto A = random_features<float>(c.m, c.k, static_cast<std::uint64_t>(c.m + c.k));
    auto W1 = random_features<float>(c.k, c.n1, static_cast<std::uint64_t>(c.n1 + 7));
    const auto W2 = random_features<float>(c.n1, c.n2, static_cast<std::uint64_t>(c.n2 + 11));
    Vector<float> b1(c.n1, 0.0f);
    for (std::int64_t j = 0; j < c.n1; ++j) b1[j] = 0.25f * static_cast<float>(j % 5) - 0.5f;
    // The oracle: H in double, then T; each output's bound adds H's own rounding to the second
    // product's magnitude.
    std::vector<double> want(static_cast<std::size_t>(c.m * c.n2), 0.0);
    double scale = 1e-30;
    std::vector<double> h(static_cast<std::size_t>(c.n1)), hmag(static_cast<std::size_t>(c.n1));
    for (std::int64_t i = 0; i < c.m; ++i) {
      for (std::int64_t j = 0; j < c.n1; ++j) {
        double sum = c.bias ? double(b1[j]) : 0.0, mag = std::fabs(sum);
        for (std::int64_t t = 0; t < c.k; ++t) {
          sum += double(A(i, t)) * double(W1(t, j));
          mag += std::fabs(double(A(i, t)) * double(W1(t, j)));
        }
        h[j] = c.relu && !(sum > 0.0) ? 0.0 : sum;
        hmag[j] = mag;
      }
      for (std::int64_t q = 0; q < c.n2; ++q) {
        double sum = 0.0, mag = 0.0;
        for (std::int64_t j = 0; j < c.n1; ++j) {
          sum += h[j] * double(W2(j, q));
          mag += (std::fabs(h[j]) + hmag[j]) * std::fabs(double(W2(j, q)));
        }
        want[static_cast<std::size_t>(i * c.n2 + q)] = sum;
        scale = std::max(scale, mag);
      }
    }
    DenseMatrix<float> T(c.m, c.n2, std::numeric_limits<float>::quiet_NaN());  // poisoned
    ASSERT_TRUE(detail::cuda::gemm_split_tf32_mlp(T, A, W1, c.bias ? &b1 : nullptr, c.relu, W2))
        << what;
    const DenseMatrix<float>& Tc = T;
    ASSERT_EQ(Tc.rows(), c.m);
    ASSERT_EQ(Tc.cols(), c.n2);
    double err = 0.0;
    for (std::int64_t e = 0; e < c.m * c.n2; ++e) {
      const double d = std::fabs(double(Tc.data()[e]) - want[static_cast<std::size_t>(e)]);
      err = std::max(err, std::isfinite(d) ? d / scale : 1e30);
    }
    EXPECT_LE(err, 1e-5) << what;
  }
  // Refusals: sizes past the kernel's (T untouched), and shapes that do not chain (thrown).
  const auto A = random_features<float>(100, 132, 1);
  const auto W = random_features<float>(132, 16, 2);
  const auto V = random_features<float>(16, 36, 3);
  DenseMatrix<float> T(3, 3, 7.0f);
  EXPECT_FALSE(detail::cuda::gemm_split_tf32_mlp(T, A, W, nullptr, true, V));
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(100, 132, 16, 16));  // k > 128
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(100, 64, 132, 16));  // n1 > 128
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(100, 64, 64, 36));   // n2 > 32
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(100, 64, 64, 6));    // n2 % 4
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(100, 6, 64, 8));     // k % 4
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(0, 64, 64, 8));      // no rows
  EXPECT_EQ(T.rows(), 3);
  const auto A2 = random_features<float>(10, 8, 4);
  EXPECT_THROW(detail::cuda::gemm_split_tf32_mlp(T, A2, W, nullptr, true, V), DimensionMismatch);
  setenv("SPINDLE_GEMM_SPLIT_TF32", "0", 1);
  EXPECT_FALSE(detail::cuda::split_tf32_mlp_applies(64, 128, 128, 32));  // cuBLAS asked for
  unsetenv("SPINDLE_GEMM_SPLIT_TF32");
}

// Operands the kernel cannot take (k or n not a multiple of 4, misaligned pointers, no rows)
// are refused, so gemm() runs them on cuBLAS.
TEST_F(GemmCuda, SplitTf32RefusesWhatItCannotRun) {
  SPINDLE_REQUIRE_CUDA();
  if (device_caps().cc_major < 8) GTEST_SKIP() << "tensor-core TF32 needs sm_80";
  // Only alignment and shape are checked, never the memory: any 16-byte aligned address will do.
  alignas(16) static const float buf[64] = {};
  const float* p = buf;
  EXPECT_TRUE(detail::cuda::split_tf32_applies(8, 8, 8, p, p, p));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(8, 8, 6, p, p, p));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(8, 6, 8, p, p, p));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(8, 8, 8, p + 1, p, p));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(8, 8, 8, p, p + 2, p));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(8, 8, 8, p, p, p + 3));
  EXPECT_FALSE(detail::cuda::split_tf32_applies(0, 8, 8, p, p, p));
  // ... and the hook refuses the same operands instead of running them.
  const DenseMatrix<float> A(8, 6, 1.0f), B(6, 8, 1.0f);
  DenseMatrix<float> C(8, 8, 0.0f);
  EXPECT_FALSE(detail::cuda::debug_split_tf32_gemm(C, A, B));
}

}  // namespace
}  // namespace spindle
